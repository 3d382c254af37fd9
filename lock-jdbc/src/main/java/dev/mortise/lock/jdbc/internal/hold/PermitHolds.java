package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.PermitSql;
import dev.mortise.lock.jdbc.internal.ReleaseSignals;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;

/**
 * Permit holds of native semaphores ({@link PermitSql}): a reader of the key's row that carries its
 * count, so they renew as readers do ({@link SharedHolds}); the grant's state is a {@link SharedKey}
 * with {@code permits}. A request arriving is refused with a {@link PermitCountMismatchException}
 * when live holds keep another count; a request that waits follows the stored count. Without a
 * release listener this backend's own permit waiters (each acquisition is its own owner, so they
 * wait here rather than in the core's gate) are woken at once by its own releases and count changes.
 */
final class PermitHolds implements HoldDriver {

    private final PermitSql permits;
    private final SharedHolds readers;
    private final Admission admission;
    private final TableVersion version;
    private final JdbcCalls calls;
    private final WaitLeftovers leftovers;
    private final ReleaseSignals signals;
    private final boolean listens;

    /** @param listens whether a release listener wakes waiters (then nothing here needs to) */
    PermitHolds(PermitSql permits, SharedHolds readers, Admission admission, TableVersion version, JdbcCalls calls,
                WaitLeftovers leftovers, ReleaseSignals signals, boolean listens) {
        this.permits = permits;
        this.readers = readers;
        this.admission = admission;
        this.version = version;
        this.calls = calls;
        this.leftovers = leftovers;
        this.signals = signals;
        this.listens = listens;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return attempt(request, false, false, 0);
    }

    /** One permit attempt; a refusal because live holds keep another count is thrown as a mismatch. */
    private Attempt attempt(LockRequest request, boolean follow, boolean record, long markMillis) {
        int[] mismatch = {0};
        Attempt attempt = admission.attempt(request, "acquire (permits)", (c, key, requestedAt) -> version.permits(() -> {
            PermitSql.Outcome outcome = permits.acquire(c, key, request.owner(), Leases.millis(request.lease()),
                    request.permits().count(), request.permits().limit(), follow, record, markMillis, requestedAt);
            mismatch[0] = outcome.mismatch();
            return outcome.isGranted() ? new LockSql.Outcome(outcome.token(), -1)
                    : new LockSql.Outcome(0, outcome.remainingMillis());
        }));
        if (!attempt.isGranted() && mismatch[0] > 0) {
            throw new PermitCountMismatchException(request.key(), "jdbc", mismatch[0], request.permits().limit());
        }
        return attempt;
    }

    @Override
    public JdbcWait.Attempts waitFor(LockRequest request, String storedKey) {
        return new PermitWait(request, storedKey);
    }

    /** A waiting permit request: recorded as a waiting reader is, following the stored count after its first attempt. */
    private final class PermitWait extends OneWait {

        PermitWait(LockRequest request, String stored) {
            super(request, stored);
        }

        @Override
        Attempt attempt(long markMillis, boolean first) {
            // The first attempt is the request arriving (a count mismatch refuses it); later ones
            // are a waiting request, which follows the stored count (setPermits wakes it).
            return PermitHolds.this.attempt(request, !first, leftovers.recorded(), markMillis);
        }

        @Override
        void removeLeftovers() {
            leftovers.forgetWaiter(request.key(), stored, request.owner());
        }
    }

    /** Permit holds renew as the readers they are. */
    @Override
    public boolean renew(Grant grant, Duration lease) {
        return readers.renew(grant, lease);
    }

    @Override
    public boolean release(Grant grant) {
        SharedKey key = grant.state();
        boolean released = calls.run(grant.key(), "release (permits)", c -> version.permits(
                () -> permits.release(c, key.stored(), grant.owner())));
        if (released) {
            wakeLocalWaiters(key.stored());
        }
        return released;
    }

    /** One statement: changes the stored count if permit holds are live, and wakes recorded waiters. */
    void setPermits(String key, int limit) {
        String stored = admission.stored(key).value();
        calls.runIdempotent(key, "set the permit count of", c -> version.permits(() -> {
            permits.setPermits(c, stored, limit);
            return null;
        }));
        wakeLocalWaiters(stored);
    }

    /** Wakes this backend's own waiters of the key where no release listener does. */
    private void wakeLocalWaiters(String storedKey) {
        if (!listens) {
            signals.fire(storedKey);
        }
    }
}
