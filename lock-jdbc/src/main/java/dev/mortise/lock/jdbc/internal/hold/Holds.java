package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.DialectSql;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.ReleaseSignals;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.SharedSql;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.jdbc.internal.UnconfirmedGrants;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitSteps;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The JDBC backend's holds: one {@link HoldDriver} per kind (exclusive, shared, permits), chosen
 * once per request by its mode and permits or per grant by its state, the batch path
 * ({@link BatchAcquire}) and the renewal of many grants ({@link Renewals}), over one backend's
 * statements, calls and waits. Thread-safe; {@link #close()} drops pending clean-ups.
 */
public final class Holds implements AutoCloseable {

    private final Admission admission;
    private final UnconfirmedGrants unconfirmed;
    private final JdbcWait waits;
    private final ExclusiveHolds exclusive;
    private final SharedHolds shared;
    private final PermitHolds permits;
    private final BatchAcquire batch;
    private final Renewals renewals;

    /**
     * @param listens    whether a release listener wakes this backend's waiters
     * @param upgradeDdl the statements that bring a table of an earlier version up to date, as one line
     */
    public Holds(DialectSql sql, JdbcCalls calls, JdbcWait waits, ReleaseSignals signals, boolean listens,
                 int keyColumnBytes, Duration operationTimeout, TableName table, String upgradeDdl) {
        this.waits = waits;
        this.unconfirmed = new UnconfirmedGrants(sql.locks(), sql.shared(), calls, operationTimeout);
        this.admission = new Admission(calls, unconfirmed, keyColumnBytes);
        TableVersion version = new TableVersion(table, upgradeDdl);
        WaitLeftovers leftovers = new WaitLeftovers(calls, sql.waits());
        this.exclusive = new ExclusiveHolds(sql.locks(), sql.waits(), admission, version, calls, leftovers);
        this.shared = new SharedHolds(sql.shared(), admission, version, calls, leftovers);
        this.permits = new PermitHolds(sql.permits(), shared, admission, version, calls, leftovers, signals, listens);
        this.batch = new BatchAcquire(sql.batch(), sql.locks(), sql.shared(), admission, version, calls, unconfirmed);
        this.renewals = new Renewals(sql.locks(), sql.shared(), version, calls);
    }

    /** The driver of {@code request}'s kind of hold. */
    public HoldDriver driver(LockRequest request) {
        return request.takesPermits() ? permits : request.shared() ? shared : exclusive;
    }

    /** The driver of the kind of hold {@code grant} is, by its state. */
    public HoldDriver driver(Grant grant) {
        if (grant.state() instanceof SharedKey key) {
            return key.permits() ? permits : shared;
        }
        return exclusive;
    }

    /**
     * The wait for {@code request}, up to {@code wait} from now, by its driver's attempts
     * ({@link JdbcWait}): steps for {@link dev.mortise.lock.spi.WaitDriver}, to run once.
     */
    public WaitSteps waitFor(LockRequest request, Duration wait) {
        String stored = admission.stored(request.key()).value();
        return waits.steps(stored, wait, driver(request).waitFor(request, stored));
    }

    /** See {@link dev.mortise.lock.spi.LockBackend#tryAcquireAll}. */
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return batch.tryAcquireAll(requests);
    }

    /** See {@link dev.mortise.lock.spi.LockBackend#renewAll}. */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        return renewals.renewAll(grants, lease);
    }

    /** See {@link dev.mortise.lock.spi.LockBackend#setPermits}. */
    public void setPermits(String key, int limit) {
        permits.setPermits(key, limit);
    }

    /**
     * Refuses the one owner no request may have: what the table stores for a key held shared.
     *
     * @throws IllegalArgumentException if {@code request}'s owner is {@link SharedSql#SHARED_OWNER}
     */
    public static void checkOwner(LockRequest request) {
        if (SharedSql.SHARED_OWNER.equals(request.owner())) {
            throw new IllegalArgumentException("owner '" + SharedSql.SHARED_OWNER + "' of lock '" + request.key()
                    + "' is what the JDBC backend ('jdbc') stores for a key held shared; use the core's owner ids");
        }
    }

    /** Drops pending clean-ups of unconfirmed grants: their rows expire with their leases. */
    @Override
    public void close() {
        unconfirmed.close();
    }
}
