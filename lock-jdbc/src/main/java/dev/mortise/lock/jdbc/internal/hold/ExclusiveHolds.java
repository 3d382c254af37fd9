package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.WaitSql;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Exclusive holds: the key's row owned by the request ({@link LockSql}); the grant's state is the
 * stored key as a plain {@code String}. A request that waits leaves, with each attempt that finds
 * the key busy, a marker on the row that keeps new readers out until it is granted or gives up
 * ({@link WaitSql#acquireMarking}); on a table of the previous version it leaves none.
 */
final class ExclusiveHolds implements HoldDriver {

    private final LockSql sql;
    private final WaitSql waits;
    private final Admission admission;
    private final TableVersion version;
    private final JdbcCalls calls;
    private final WaitLeftovers leftovers;

    ExclusiveHolds(LockSql sql, WaitSql waits, Admission admission, TableVersion version, JdbcCalls calls,
                   WaitLeftovers leftovers) {
        this.sql = sql;
        this.waits = waits;
        this.admission = admission;
        this.version = version;
        this.calls = calls;
        this.leftovers = leftovers;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return admission.attempt(request, "acquire", (c, key, requestedAt) ->
                sql.acquire(c, key, request.owner(), Leases.millis(request.lease()), requestedAt));
    }

    @Override
    public JdbcWait.Attempts waitFor(LockRequest request, String storedKey) {
        return new MarkingWait(request, storedKey);
    }

    /** A waiting writer: each attempt marks the row it is refused on; giving up removes the marker. */
    private final class MarkingWait extends OneWait {

        MarkingWait(LockRequest request, String stored) {
            super(request, stored);
        }

        @Override
        Attempt attempt(long markMillis, boolean first) {
            if (version.isLegacy()) {
                return tryAcquire(request);
            }
            return admission.attempt(request, "acquire", (c, key, requestedAt) ->
                    acquireMarking(c, key, request, markMillis, requestedAt));
        }

        /** Nothing was marked on a table of the previous version (found at the latest by the first attempt). */
        @Override
        void removeLeftovers() {
            if (!version.isLegacy()) {
                leftovers.clearMark(request.key(), stored, request.owner());
            }
        }
    }

    /** The marking attempt; on a table of the previous version (found now) the plain one instead. */
    private LockSql.Outcome acquireMarking(Connection c, StoredKey key, LockRequest request, long markMillis,
                                           long[] requestedAt) throws SQLException {
        try {
            return waits.acquireMarking(c, key, request.owner(), Leases.millis(request.lease()), markMillis, requestedAt);
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            version.foundLegacy();
            return sql.acquire(c, key, request.owner(), Leases.millis(request.lease()), requestedAt);
        }
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        return calls.runIdempotent(grant.key(), "renew", c -> sql.renew(c, grant.state(), grant.owner(),
                Leases.millis(lease)));
    }

    @Override
    public boolean release(Grant grant) {
        return calls.run(grant.key(), "release", c -> sql.release(c, grant.state(), grant.owner()));
    }
}
