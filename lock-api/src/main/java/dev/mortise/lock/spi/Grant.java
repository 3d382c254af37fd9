package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A hold the server confirmed. Immutable; what a backend needs to renew or release the
 * hold travels in {@link #state()}. Two grants are equal when key and owner are equal
 * (owners are unique per hold).
 *
 * <p><b>A grant is never older than its evidence.</b> A backend makes a grant only from an
 * answer that says <em>granted by this request</em> explicitly — one flag or value the server
 * computed once, in the script or statement that decided — and {@link #fencingToken()} is the
 * token that request wrote; "the owner's entry is present" is not a grant (a first send of the
 * same request may have left that entry in a state the request now being answered was refused
 * in). Its validity counts from {@link #requestedAtNanos()}, the send of the <em>earliest</em>
 * request the grant rests on: when a request had to be sent again (its connection broke, its
 * answer was lost), a grant from the resend counts from the <em>first</em> send, which may have
 * been applied and whose server-side expiry counts from there; a grant decided from a listing,
 * a watch event or a hand-off counts from the request that produced that state, not from when
 * the client read it.
 *
 * <p>A grant also carries the lease the server put in force with it ({@link #appliedLease()}):
 * most servers apply the lease the request asked for, and their backends use the constructor
 * without it; a server that keeps a lease of its own (an etcd lease keeps the TTL it was granted
 * with) says so through the constructor that takes it. The core counts local validity from that
 * value and never from the caller's wish.
 */
public final class Grant {

    private final String key;
    private final String owner;
    private final long fencingToken;
    private final long requestedAtNanos;
    private final Duration appliedLease;
    private final Object state;

    /**
     * @param key              the user's key
     * @param owner            the owner id stored with the hold
     * @param fencingToken     the token of this grant
     * @param requestedAtNanos the backend's {@link LockBackend#ticker()} ({@link System#nanoTime()}
     *                         for every server across a network) read just before the granting
     *                         request was sent — for a request sent more than once, before its
     *                         first send (see the class comment): local validity counts from here
     * @param state            backend data (a node path, an etcd lease id), or {@code null}
     */
    public Grant(String key, String owner, long fencingToken, long requestedAtNanos, Object state) {
        this(key, owner, fencingToken, requestedAtNanos, null, state);
    }

    /**
     * A grant whose server put a lease in force other than the one the request asked for.
     *
     * @param appliedLease the lease the server keeps the hold for, counted from the request's send
     *                     (positive), or {@code null} for "the lease the request asked for" (what
     *                     the other constructor means)
     * @see #Grant(String, String, long, long, Object)
     */
    public Grant(String key, String owner, long fencingToken, long requestedAtNanos, Duration appliedLease,
                 Object state) {
        this.key = Objects.requireNonNull(key, "key");
        this.owner = Objects.requireNonNull(owner, "owner");
        if (appliedLease != null && (appliedLease.isNegative() || appliedLease.isZero())) {
            throw new IllegalArgumentException("appliedLease must be positive, was " + appliedLease);
        }
        this.fencingToken = fencingToken;
        this.requestedAtNanos = requestedAtNanos;
        this.appliedLease = appliedLease;
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

    /**
     * The lease the server put in force with this grant, counted from {@link #requestedAtNanos()};
     * empty when it is the lease the request asked for.
     */
    public Optional<Duration> appliedLease() {
        return Optional.ofNullable(appliedLease);
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
