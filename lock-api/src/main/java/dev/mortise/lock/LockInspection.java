package dev.mortise.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@link LockClient#inspect(String)} read about one key: whether it is held, by whom, with
 * which fencing tokens and how much lease the server still gives each hold, and how many requests
 * wait where the server knows. A read-only snapshot taken at {@link #readAt()}: by the time the
 * caller looks at it the key may have changed hands, so it is for diagnostics (an operator asking
 * "who has this lock?"), never a substitute for acquiring. Immutable and thread-safe.
 *
 * <p>Holders are named by an opaque {@link Holder#holderId() holder id}, never by the owner string
 * the server stores: that string is what a release is checked against, so showing it would let
 * anyone who reads the inspection release someone else's lock. The id is a stable digest of it;
 * {@link LockLease#holderId()} gives the same id for a lease, so a caller can tell "that holder
 * is me".
 *
 * @param key     the key as the caller gave it
 * @param backend the backend's name
 * @param mode    {@link LockMode#EXCLUSIVE} (one holder) or {@link LockMode#SHARED} (one or more
 *                readers); {@code null} when the key is free
 * @param holders the holds on the server, in the order the server keeps them; empty when free
 * @param waiters requests that wait for the key on the server (queued nodes, queue entries); empty
 *                where the server cannot tell (see each backend's documentation)
 * @param readAt  when the read was made (this client's clock, just before the request was sent)
 */
public record LockInspection(String key, String backend, LockMode mode, List<Holder> holders, OptionalInt waiters,
                             Instant readAt) {

    public LockInspection {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(backend, "backend");
        holders = List.copyOf(Objects.requireNonNull(holders, "holders"));
        Objects.requireNonNull(waiters, "waiters");
        Objects.requireNonNull(readAt, "readAt");
        if (holders.isEmpty() != (mode == null)) {
            throw new IllegalArgumentException("an inspection has a mode exactly when it has holders: mode=" + mode
                    + ", holders=" + holders.size());
        }
    }

    /** Whether any hold of the key was on the server. */
    public boolean held() {
        return !holders.isEmpty();
    }

    /** Whether one of the holders is a live hold of the client that inspected. */
    public boolean heldByThisClient() {
        return holders.stream().anyMatch(Holder::heldByThisClient);
    }

    /**
     * One hold on the server.
     *
     * @param holderId         an opaque, stable id of the hold: the first 16 hex digits of the
     *                         SHA-256 of the owner string the server stores. Equal to
     *                         {@link LockLease#holderId()} of the lease on that hold; reveals
     *                         nothing that would let a caller release it
     * @param fencingToken     the token of the grant, where the server stores it with the hold
     * @param remaining        how long the server keeps the hold without a renewal, by its own
     *                         clock or TTL, where it has one (a ZooKeeper session has none). A
     *                         renewed hold is renewed long before this runs out
     * @param heldByThisClient whether the hold is a live hold of the client that inspected
     */
    public record Holder(String holderId, OptionalLong fencingToken, Optional<Duration> remaining,
                         boolean heldByThisClient) {
        public Holder {
            Objects.requireNonNull(holderId, "holderId");
            Objects.requireNonNull(fencingToken, "fencingToken");
            Objects.requireNonNull(remaining, "remaining");
        }
    }
}
