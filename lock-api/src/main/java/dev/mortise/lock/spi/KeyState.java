package dev.mortise.lock.spi;

import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a backend's server records about one key at one instant, as read by
 * {@link LockBackend#inspect(String)}: the holds it has (none when the key is free) and, where
 * the server knows, how many requests wait. A read-only snapshot: by the time the caller looks
 * at it the key may have changed hands.
 *
 * @param mode    the mode of the holds: {@link LockMode#EXCLUSIVE} (exactly one holder) or
 *                {@link LockMode#SHARED} (one or more readers); null when the key is free
 * @param holders the holds on the server, in the order the server keeps them (empty when free)
 * @param waiters requests of the key that wait on the server (queued nodes, queue entries,
 *                waiting-writer markers counted as one each); empty where the server cannot tell
 */
public record KeyState(LockMode mode, List<Holder> holders, OptionalInt waiters) {

    public KeyState {
        holders = List.copyOf(Objects.requireNonNull(holders, "holders"));
        Objects.requireNonNull(waiters, "waiters");
        if (holders.isEmpty() != (mode == null)) {
            throw new IllegalArgumentException("a KeyState has a mode exactly when it has holders: mode=" + mode
                    + ", holders=" + holders.size());
        }
        if (mode == LockMode.EXCLUSIVE && holders.size() > 1) {
            throw new IllegalArgumentException("an exclusive KeyState has one holder, not " + holders.size());
        }
    }

    /** A key no one holds. */
    public static KeyState free(OptionalInt waiters) {
        return new KeyState(null, List.of(), waiters);
    }

    /** Whether any hold of the key is on the server. */
    public boolean held() {
        return !holders.isEmpty();
    }

    /**
     * One hold on the server.
     *
     * @param owner        the owner string stored with the hold, exactly as the backend wrote it
     *                     from {@link LockRequest#owner()}. It is a release credential: the core
     *                     never shows it to users, only an opaque digest of it
     * @param fencingToken the token of the grant, where the server stores it with the hold
     * @param remaining    how long the server keeps the hold without a renewal, by the server's
     *                     own clock or TTL, where it has one (a ZooKeeper session has none)
     */
    public record Holder(String owner, OptionalLong fencingToken, Optional<Duration> remaining) {
        public Holder {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(fencingToken, "fencingToken");
            Objects.requireNonNull(remaining, "remaining");
        }
    }
}
