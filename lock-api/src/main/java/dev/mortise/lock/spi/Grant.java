package dev.mortise.lock.spi;

import java.util.Objects;

/**
 * A hold the server confirmed. Immutable; what a backend needs to renew or release the
 * hold travels in {@link #state()}. Two grants are equal when key and owner are equal
 * (owners are unique per hold).
 */
public final class Grant {

    private final String key;
    private final String owner;
    private final long fencingToken;
    private final long requestedAtNanos;
    private final Object state;

    /**
     * @param key              the user's key
     * @param owner            the owner id stored with the hold
     * @param fencingToken     the token of this grant
     * @param requestedAtNanos the backend's {@link LockBackend#ticker()} ({@link System#nanoTime()}
     *                         for every server across a network) read just before the granting
     *                         request was sent: local validity counts from here
     * @param state            backend data (a node path, an etcd lease id), or {@code null}
     */
    public Grant(String key, String owner, long fencingToken, long requestedAtNanos, Object state) {
        this.key = Objects.requireNonNull(key, "key");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.fencingToken = fencingToken;
        this.requestedAtNanos = requestedAtNanos;
        this.state = state;
    }

    public String key() {
        return key;
    }

    public String owner() {
        return owner;
    }

    public long fencingToken() {
        return fencingToken;
    }

    public long requestedAtNanos() {
        return requestedAtNanos;
    }

    /** The backend's data, cast to what the backend stored. */
    @SuppressWarnings("unchecked")
    public <T> T state() {
        return (T) state;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Grant g && key.equals(g.key) && owner.equals(g.owner);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + owner.hashCode();
    }

    @Override
    public String toString() {
        return "Grant[key=" + key + ", token=" + fencingToken + "]";
    }
}
