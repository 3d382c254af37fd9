package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.SharedSql;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;

/**
 * Shared (read) holds: a reader entry in the key's row ({@link SharedSql}); the grant's state is a
 * {@link SharedKey}. Renewal and release also serve permit holds, which are readers too. Where
 * waiters are recorded (PostgreSQL listening for releases) a waiting reader's refused attempts
 * record it, and giving up removes the record.
 */
final class SharedHolds implements HoldDriver {

    private final SharedSql shared;
    private final Admission admission;
    private final TableVersion version;
    private final JdbcCalls calls;
    private final WaitLeftovers leftovers;

    SharedHolds(SharedSql shared, Admission admission, TableVersion version, JdbcCalls calls,
                WaitLeftovers leftovers) {
        this.shared = shared;
        this.admission = admission;
        this.version = version;
        this.calls = calls;
        this.leftovers = leftovers;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return admission.attempt(request, "acquire (shared)", (c, key, requestedAt) -> version.shared(() ->
                shared.acquireShared(c, key, request.owner(), Leases.millis(request.lease()), requestedAt)));
    }

    @Override
    public JdbcWait.Attempts waitFor(LockRequest request, String storedKey) {
        return new ReaderWait(request, storedKey);
    }

    /** A waiting reader: its refused attempts may record it in the row; giving up removes the record. */
    private final class ReaderWait extends OneWait {

        ReaderWait(LockRequest request, String stored) {
            super(request, stored);
        }

        @Override
        Attempt attempt(long markMillis, boolean first) {
            return admission.attempt(request, "acquire (shared)", (c, key, requestedAt) -> version.shared(() ->
                    shared.acquireSharedWaiting(c, key, request.owner(), Leases.millis(request.lease()), markMillis,
                            requestedAt)));
        }

        @Override
        void removeLeftovers() {
            leftovers.forgetWaiter(request.key(), stored, request.owner());
        }
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        SharedKey key = grant.state();
        return calls.runIdempotent(grant.key(), "renew (shared)", c -> version.shared(
                () -> shared.renewShared(c, key.stored(), grant.owner(), Leases.millis(lease))));
    }

    @Override
    public boolean release(Grant grant) {
        SharedKey key = grant.state();
        return calls.run(grant.key(), "release (shared)", c -> version.shared(
                () -> shared.releaseShared(c, key.stored(), grant.owner())));
    }
}
