package dev.mortise.lock;

/**
 * Root of every failure Mortise reports. Unchecked, so that lock code reads like
 * {@code try (LockLease lease = locks.acquire(...)) { ... }}.
 *
 * <p>Every message names the key, the backend and what the caller can do about it.
 * {@link #key()} and {@link #backend()} give the same facts to code.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String backend;

    public LockException(String message, String key, String backend, Throwable cause) {
        super(message, cause);
        this.key = key;
        this.backend = backend;
    }

    /** The lock key the failure is about, or {@code null} if it concerns no single key. */
    public String key() {
        return key;
    }

    /** The name of the backend that reported it ({@code "redis"}, {@code "local"}, ...). */
    public String backend() {
        return backend;
    }
}
