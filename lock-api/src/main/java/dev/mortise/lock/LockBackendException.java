package dev.mortise.lock;

/**
 * The backend could not be reached within its operation timeout, or answered with an
 * error. Nothing was granted that the server did not confirm.
 */
public class LockBackendException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockBackendException(String message, String key, String backend, Throwable cause) {
        super(message, key, backend, cause);
    }
}
