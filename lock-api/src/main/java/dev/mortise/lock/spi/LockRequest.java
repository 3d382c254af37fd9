package dev.mortise.lock.spi;

import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.Objects;

/**
 * One request to a backend: take {@code key} for {@code owner} with {@code lease}, in
 * {@code mode}.
 * The core has validated every field: the key is non-blank and within the configured
 * length, the owner is unique per hold and unguessable, the lease is positive.
 *
 * @param key     the user's key, unencoded; the backend encodes it injectively
 * @param owner   the owner id to store with the hold (unique per hold)
 * @param lease   how long the server keeps the hold without renewal
 * @param renewed whether the watchdog will renew it (session-bound backends may use this
 *                to choose between a shared session and a per-hold lease)
 * @param mode    {@link LockMode#EXCLUSIVE} (every request before shared locks), or
 *                {@link LockMode#SHARED}, which the core sends only to a backend whose
 *                {@link LockBackend#supportsSharedMode()} is true (or, for a permit request,
 *                whose {@link LockBackend#supportsPermits()} is)
 * @param permits {@code null} for a lock request; for a semaphore acquisition, the permits it
 *                takes and the semaphore's count (the mode is then {@link LockMode#SHARED}), sent
 *                only to a backend whose {@link LockBackend#supportsPermits()} is true
 */
public record LockRequest(String key, String owner, Duration lease, boolean renewed, LockMode mode,
                          Permits permits) {

    public LockRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(mode, "mode");
        if (permits != null && mode != LockMode.SHARED) {
            throw new IllegalArgumentException("a permit request is SHARED, got " + mode + " for key " + key);
        }
    }

    /** A lock request (no permits) in {@code mode}. */
    public LockRequest(String key, String owner, Duration lease, boolean renewed, LockMode mode) {
        this(key, owner, lease, renewed, mode, null);
    }

    /** An exclusive request. */
    public LockRequest(String key, String owner, Duration lease, boolean renewed) {
        this(key, owner, lease, renewed, LockMode.EXCLUSIVE);
    }

    /** Whether this request asks for a shared (read) hold. */
    public boolean shared() {
        return mode == LockMode.SHARED;
    }

    /** Whether this request takes semaphore permits ({@link #permits()} is not null). */
    public boolean takesPermits() {
        return permits != null;
    }
}
