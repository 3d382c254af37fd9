package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.jdbc.internal.BatchSql;
import dev.mortise.lock.jdbc.internal.Dialects;
import dev.mortise.lock.jdbc.internal.InspectSql;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.PermitSql;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.ReleaseListener;
import dev.mortise.lock.jdbc.internal.ReleaseSignals;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.SharedSql;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.jdbc.internal.UnconfirmedGrants;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The JDBC backend ({@code "jdbc"}): locks as rows of one table in PostgreSQL, MySQL/MariaDB
 * or H2, over a plain {@link DataSource}.
 *
 * <p>Each lock is one row keyed by the lock's key. Acquire, renew and release are one
 * statement each (see {@link JdbcDialect}); expiry is judged only by the database's clock,
 * so clients with skewed clocks cannot take an unexpired lock. Release clears the owner and
 * keeps the row, so the fencing token of a key only grows for as long as the row lives.
 * Every operation borrows its own connection in autocommit mode and never joins a
 * transaction of the caller's. On PostgreSQL, waiters are woken by {@code LISTEN/NOTIFY}
 * through one connection per backend; elsewhere they poll with backoff, never sleeping past
 * the holder's lease.
 *
 * <p>Shared (read) holds live in the same row: {@code lock_owner = '(shared)'}, {@code expires_at}
 * the latest reader's expiry, and the readers in {@code shared_holds}, so the exclusive statements
 * see a key held shared as held and are unchanged. An exclusive request that waits leaves a marker
 * on the row that keeps new readers out until it is granted or gives up; every grant of either
 * mode raises the row's one token. See {@code docs/jdbc.md}, "Read-write locks".
 *
 * <p>Thread-safe. Closing it stops the LISTEN thread; the data source belongs to the caller.
 *
 * <pre>{@code
 * LockClient locks = LockClient.builder(JdbcLockBackend.builder(dataSource).build()).build();
 * }</pre>
 */
public final class JdbcLockBackend implements LockBackend {

    private static final Logger log = LoggerFactory.getLogger(JdbcLockBackend.class);

    private final JdbcDialect dialect;
    private final TableName table;
    private final LockSql sql;
    private final SharedSql shared;
    /** Native semaphores, or null for a dialect without them (the core then uses one lock per permit). */
    private final PermitSql permits;
    private final BatchSql batch;
    private final InspectSql inspection;
    private final JdbcCalls calls;
    private final int keyColumnBytes;
    private final int queryTimeoutSeconds;
    private final long pushedPollNanos;
    private final long listenStartNanos;
    private final ReleaseSignals signals = new ReleaseSignals();
    private final ReleaseListener listener;
    private final BackendGuarantees guarantees;
    private final UnconfirmedGrants unconfirmed;
    private final JdbcWait waits;
    /**
     * Set when the table turned out to be of the previous version (no columns for shared locks):
     * waiting exclusive requests then leave no writer marker, and shared requests fail naming the DDL.
     */
    private volatile boolean legacyTable;

    private static final String FENCING_COUNTER =
            "A per-key counter in the lock row, which release keeps: strictly increasing for as long as the row "
                    + "lives; it breaks if the row is deleted, the table truncated or recreated, or the database "
                    + "restored from a backup or failed over to a replica that misses the latest grants.";
    private static final String FENCING_SERVER_CLOCK =
            "max(token in the lock row + 1, the database's clock in microseconds), computed in the acquire statement: "
                    + "strictly increasing while the row lives, and still increasing when the database loses the row "
                    + "or its latest writes (crash with durability off, failover to a lagging replica, restore, "
                    + "truncated table) unless the clock of the database granting after the loss is behind the "
                    + "last token by more than the loss took (a clock stepped back, or a replica's clock that far "
                    + "behind the old primary's).";

    /** @param tableOwed whether the table still has to be created (the database was down at build) */
    JdbcLockBackend(JdbcLockBackendBuilder builder, JdbcDialect dialect, boolean tableOwed) {
        this.dialect = dialect;
        this.table = builder.table;
        this.queryTimeoutSeconds = seconds(builder.operationTimeout);
        this.sql = Dialects.sql(dialect, table, queryTimeoutSeconds,
                builder.fencingTokens == FencingTokens.SERVER_CLOCK);
        this.listener = builder.listen
                ? Dialects.listener(dialect, builder.dataSource, table, signals, queryTimeoutSeconds,
                builder.operationTimeout) : null;
        // a backend that hears no NOTIFY polls, so its waits record no interest that would make releases notify
        this.shared = Dialects.sharedSql(dialect, table, queryTimeoutSeconds,
                builder.fencingTokens == FencingTokens.SERVER_CLOCK, sql, listener != null);
        this.permits = Dialects.permitSql(dialect, table, queryTimeoutSeconds,
                builder.fencingTokens == FencingTokens.SERVER_CLOCK);
        this.batch = Dialects.batchSql(dialect, table, queryTimeoutSeconds,
                builder.fencingTokens == FencingTokens.SERVER_CLOCK);
        this.inspection = new InspectSql(dialect, table, queryTimeoutSeconds);
        this.calls = new JdbcCalls(builder.dataSource, table, builder.operationTimeout);
        if (tableOwed) {
            int seconds = queryTimeoutSeconds;
            calls.setUpOnFirstUse(c -> {
                Schema.createIfMissing(c, dialect, table, seconds);
                return null;
            });
        }
        if (builder.createTable) {
            int seconds = queryTimeoutSeconds;
            calls.recreateTableWhenMissing(c -> {
                Schema.createIfMissing(c, dialect, table, seconds);
                return null;
            });
        }
        this.keyColumnBytes = builder.keyColumnBytes;
        this.unconfirmed = new UnconfirmedGrants(sql, shared, calls, builder.operationTimeout);
        this.pushedPollNanos = builder.pushedPollInterval.toNanos();
        this.listenStartNanos = builder.operationTimeout.toNanos();
        this.waits = new JdbcWait(listener, signals, pushedPollNanos, builder.operationTimeout.toNanos());
        this.guarantees = new BackendGuarantees(BackendGuarantees.LeaseModel.TIME_BOUND, false,
                listener != null ? BackendGuarantees.Wakeup.PUSH : BackendGuarantees.Wakeup.POLL,
                builder.fencingTokens == FencingTokens.SERVER_CLOCK ? FENCING_SERVER_CLOCK : FENCING_COUNTER,
                Duration.ofMillis(1));
    }

    /** A builder over {@code dataSource}: a plain one, never a transaction-aware proxy. */
    public static JdbcLockBackendBuilder builder(DataSource dataSource) {
        return new JdbcLockBackendBuilder(dataSource);
    }

    /** The dialect in use, set or detected. */
    public JdbcDialect dialect() {
        return dialect;
    }

    /** The lock table's name as used in SQL. */
    public String tableName() {
        return table.sql();
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public BackendGuarantees guarantees() {
        return guarantees;
    }

    /** Shared (read) holds: readers together, a writer alone, waiting writers ahead of new readers. */
    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /**
     * Native semaphores on every dialect (see docs/jdbc.md, "Semaphores"): a permit hold is a reader of
     * the key's row that carries its count in the row's {@code permits} column, where the stored count
     * lives while holds do. Always true.
     */
    @Override
    public boolean supportsPermits() {
        return permits != null;
    }

    /** One statement: changes the stored count if permit holds are live, and wakes recorded waiters. */
    @Override
    public void setPermits(String key, int limit) {
        requirePermits(key);
        String stored = StoredKey.of(key, keyColumnBytes).value();
        calls.runIdempotent(key, "set the permit count of", c -> permitStatement(() -> {
            permits.setPermits(c, stored, limit);
            return null;
        }));
        wakeLocalPermitWaiters(stored);
    }

    /**
     * Without a release listener (MySQL/MariaDB, H2, or {@code listenForReleases(false)}) waiters
     * poll; this backend's own permit waiters (each acquisition is its own owner, so they wait
     * here rather than in the core's gate) are woken at once by its own releases and count changes.
     */
    private void wakeLocalPermitWaiters(String storedKey) {
        if (listener == null) {
            signals.fire(storedKey);
        }
    }

    private void requirePermits(String key) {
        if (permits == null) {
            throw new UnsupportedOperationException("backend 'jdbc' keeps no native semaphores on " + dialect
                    + " (key '" + key + "'): the core builds them from one exclusive lock per permit");
        }
    }

    /** One permit attempt; a refusal because live holds keep another count is thrown as a mismatch. */
    private Attempt permitAttempt(LockRequest request, boolean follow, boolean record, long markMillis) {
        requirePermits(request.key());
        int[] mismatch = {0};
        Attempt attempt = attempt(request, "acquire (permits)", (c, key, requestedAt) -> permitStatement(() -> {
            PermitSql.Outcome outcome = permits.acquire(c, key, request.owner(), millis(request.lease()),
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

    /** A statement of semaphores, whose failure on a table without the {@code permits} column names the DDL. */
    private <T> T permitStatement(SqlWork<T> work) throws SQLException {
        try {
            return work.run();
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            throw new SQLException("lock table '" + table + "' was created by a version of Mortise without native "
                    + "semaphores and lacks their columns: run " + Schema.upgradeText(dialect, table)
                    + " for the missing ones (or build the backend with createTableIfMissing(true), which adds them). "
                    + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        checkOwner(request);
        if (request.takesPermits()) {
            return permitAttempt(request, false, false, 0);
        }
        if (request.shared()) {
            return attempt(request, "acquire (shared)", (c, key, requestedAt) ->
                    sharedStatement(() -> shared.acquireShared(c, key, request.owner(),
                            millis(request.lease()), requestedAt)));
        }
        return attempt(request, "acquire", (c, key, requestedAt) ->
                sql.acquire(c, key, request.owner(), millis(request.lease()), requestedAt));
    }

    /**
     * All or nothing, in one write statement ({@link BatchSql}): on PostgreSQL and H2 one statement, on
     * MySQL/MariaDB the write and, when it took the keys, one read of their tokens. The statement writes
     * nothing when it finds a key of the batch held (for a shared part: held exclusive, or marked by a
     * waiting writer), and then the answer is empty. Should another session change a row between the
     * statement's check and its write, the parts taken are released on the same connection before the
     * empty answer. Each grant is the one a single {@link #tryAcquire} of that part would have made.
     *
     * @return {@code null} (the core takes the keys one by one) for a batch with a shared part on
     *         MySQL/MariaDB and H2, and for a shared part on a table without the shared-lock columns
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        List<BatchSql.Part> parts = new ArrayList<>(requests.size());
        boolean anyShared = false;
        for (LockRequest request : requests) {
            if (request.takesPermits()) {
                return null; // permit requests are taken one by one (no native batch of them)
            }
            checkOwner(request);
            parts.add(new BatchSql.Part(StoredKey.of(request.key(), keyColumnBytes), request.owner(), request.shared()));
            anyShared |= request.shared();
        }
        if (!batch.accepts(parts) || anyShared && legacyTable) {
            return null;
        }
        String first = requests.get(0).key();
        long leaseMillis = millis(requests.get(0).lease());
        boolean withShared = anyShared;
        long[] requestedAt = {0};
        long[] firstSent = {0};
        long[] tokens;
        try {
            tokens = calls.runIdempotent(first, "acquire " + requests.size() + " locks together, the first", c -> {
                if (requestedAt[0] != 0 && firstSent[0] == 0) {
                    firstSent[0] = requestedAt[0]; // an earlier send lost its connection: it may still commit
                }
                long[] taken = withShared ? sharedStatement(() -> batch.acquireAll(c, parts, leaseMillis, requestedAt))
                        : batch.acquireAll(c, parts, leaseMillis, requestedAt);
                return giveBackUnlessAll(c, parts, taken) ? taken : null;
            });
        } catch (LockBackendException e) {
            if (requestedAt[0] != 0) {
                // Sent, but no answer (or a give-back failed): any part may be held, or be granted still.
                for (int i = 0; i < parts.size(); i++) {
                    BatchSql.Part part = parts.get(i);
                    unconfirmed.release(requests.get(i).key(), part.key().value(), part.owner(),
                            firstSent[0] != 0 ? firstSent[0] : requestedAt[0], leaseMillis, part.shared());
                }
            }
            throw e;
        }
        if (tokens == null) {
            if (firstSent[0] != 0) {
                // Refused on the resend, but the first send (whose connection broke) may still commit later.
                for (int i = 0; i < parts.size(); i++) {
                    BatchSql.Part part = parts.get(i);
                    unconfirmed.release(requests.get(i).key(), part.key().value(), part.owner(), firstSent[0],
                            leaseMillis, part.shared());
                }
            }
            return List.of();
        }
        List<Grant> grants = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            LockRequest request = requests.get(i);
            String stored = parts.get(i).key().value();
            Object state = request.shared() ? new SharedKey(stored) : stored;
            grants.add(new Grant(request.key(), request.owner(), tokens[i], earliest(firstSent[0], requestedAt[0]),
                    state));
        }
        return grants;
    }

    /**
     * Whether every part was taken; if only some were (a row changed between the batch's check and its
     * write), releases those on {@code c} first, so nothing of the batch stays on the server.
     */
    private boolean giveBackUnlessAll(java.sql.Connection c, List<BatchSql.Part> parts, long[] tokens)
            throws SQLException {
        boolean all = true;
        for (long token : tokens) {
            all &= token > 0;
        }
        if (!all) {
            for (int i = 0; i < parts.size(); i++) {
                if (tokens[i] > 0) {
                    BatchSql.Part part = parts.get(i);
                    if (part.shared()) {
                        shared.releaseShared(c, part.key().value(), part.owner());
                    } else {
                        sql.release(c, part.key().value(), part.owner());
                    }
                }
            }
        }
        return all;
    }

    /**
     * Waits for the key. PostgreSQL waiters are woken by NOTIFY, the others poll. An exclusive
     * request leaves, with each attempt that finds the key busy, a marker on the row that keeps
     * new readers out until it is granted or gives up (it lasts until the next attempt is due and
     * never past the deadline, and is removed when the wait ends without a grant). On PostgreSQL
     * every waiting request's refused attempt also records it in the row's {@code waiters} for as
     * long, so that releases notify only while somebody waits (see docs/jdbc.md, "Waiting").
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        checkOwner(request);
        String stored = StoredKey.of(request.key(), keyColumnBytes).value();
        if (request.takesPermits()) {
            requirePermits(request.key());
            return waits.acquire(request.key(), stored, wait, new JdbcWait.Attempts() {
                private boolean attempted;

                @Override
                public Attempt attempt(long markMillis) {
                    // The first attempt is the request arriving (a count mismatch refuses it); later ones
                    // are a waiting request, which follows the stored count (setPermits wakes it).
                    boolean follow = attempted;
                    attempted = true;
                    return permitAttempt(request, follow, shared.recordsWaiters(), markMillis);
                }

                @Override
                public void giveUp() {
                    if (attempted && shared.recordsWaiters()) {
                        forgetWaiter(request.key(), stored, request.owner());
                    }
                }
            });
        }
        if (request.shared()) {
            return waits.acquire(request.key(), stored, wait, new JdbcWait.Attempts() {
                private boolean attempted;

                @Override
                public Attempt attempt(long markMillis) {
                    attempted = true;
                    return JdbcLockBackend.this.attempt(request, "acquire (shared)", (c, key, requestedAt) ->
                            sharedStatement(() -> shared.acquireSharedWaiting(c, key, request.owner(),
                                    millis(request.lease()), markMillis, requestedAt)));
                }

                @Override
                public void giveUp() {
                    if (attempted && shared.recordsWaiters()) {
                        forgetWaiter(request.key(), stored, request.owner());
                    }
                }
            });
        }
        return waits.acquire(request.key(), stored, wait, new JdbcWait.Attempts() {
            private boolean marked;

            @Override
            public Attempt attempt(long markMillis) {
                if (legacyTable) {
                    return tryAcquire(request);
                }
                marked = true;
                return JdbcLockBackend.this.attempt(request, "acquire", (c, key, requestedAt) ->
                        acquireMarking(c, key, request, markMillis, requestedAt));
            }

            @Override
            public void giveUp() {
                if (marked && !legacyTable) {
                    clearMark(request.key(), stored, request.owner());
                }
            }
        });
    }

    private LockSql.Outcome acquireMarking(java.sql.Connection c, StoredKey key, LockRequest request, long markMillis,
                                           long[] requestedAt) throws SQLException {
        try {
            return shared.acquireMarking(c, key, request.owner(), millis(request.lease()), markMillis, requestedAt);
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            legacyTable = true;
            log.warn("Lock table '{}' has no columns for shared locks (a table of the previous version), so waiting "
                    + "writers leave no marker and shared locks are refused (backend 'jdbc'). Run: {}", table,
                    Schema.upgradeText(dialect, table));
            return sql.acquire(c, key, request.owner(), millis(request.lease()), requestedAt);
        }
    }

    /** Removes a reader's record as a waiter (PostgreSQL); a failure only leaves it to expire, within the mark horizon. */
    private void forgetWaiter(String userKey, String stored, String owner) {
        try {
            calls.run(userKey, "remove the waiting reader's record of", c -> {
                shared.forgetWaiter(c, stored, owner);
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("Could not remove the waiting reader's record of lock '{}' (backend 'jdbc'); it expires on its own",
                    userKey, e);
        }
    }

    /** Removes the waiting writer's marker; a failure only leaves it to expire, within the mark horizon. */
    private void clearMark(String userKey, String stored, String owner) {
        try {
            calls.run(userKey, "remove the waiting writer's marker of", c -> {
                shared.clearMark(c, stored, owner);
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("Could not remove the waiting writer's marker of lock '{}' (backend 'jdbc'); it expires on its own",
                    userKey, e);
        }
    }

    /** One acquire statement, with the clean-up of an unanswered one (see {@link UnconfirmedGrants}). */
    private Attempt attempt(LockRequest request, String action, AcquireStatement statement) {
        StoredKey key = StoredKey.of(request.key(), keyColumnBytes);
        long[] requestedAt = {0};
        long[] firstSent = {0};
        LockSql.Outcome outcome;
        try {
            outcome = calls.runIdempotent(request.key(), action, c -> {
                if (requestedAt[0] != 0 && firstSent[0] == 0) {
                    firstSent[0] = requestedAt[0]; // an earlier send lost its connection: it may still commit
                }
                return statement.run(c, key, requestedAt);
            });
        } catch (LockBackendException e) {
            if (requestedAt[0] != 0) {
                // Sent, but no answer: the server may have granted it, or may still. Nobody will renew that owner.
                unconfirmed.release(request.key(), key.value(), request.owner(),
                        firstSent[0] != 0 ? firstSent[0] : requestedAt[0], millis(request.lease()), request.shared());
            }
            throw e;
        }
        if (!outcome.isGranted() && firstSent[0] != 0) {
            // Busy on the resend, but the first send (whose connection broke) may still commit a grant later.
            unconfirmed.release(request.key(), key.value(), request.owner(), firstSent[0], millis(request.lease()),
                    request.shared());
        }
        if (outcome.isGranted()) {
            Object state = request.shared() ? new SharedKey(key.value(), request.takesPermits()) : key.value();
            return Attempt.granted(new Grant(request.key(), request.owner(), outcome.token(),
                    earliest(firstSent[0], requestedAt[0]), state));
        }
        return Attempt.busy(outcome.remainingMillis() < 0 ? null : Duration.ofMillis(outcome.remainingMillis()));
    }

    /**
     * When a grant's validity counts from: the first send of its request when the statement had to be
     * sent again ({@code firstSent}, else 0), otherwise the one send. A resend's grant rests on the first
     * send too: that send may have committed (the resend then keeps its token, or finds its entry),
     * and the database's expiry of what it wrote counts from its own statement. Counting from the
     * resend would outlive that expiry by the time the first answer was lost for.
     */
    private static long earliest(long firstSent, long requestedAt) {
        return firstSent != 0 ? firstSent : requestedAt;
    }

    /** One acquire statement on a borrowed connection. */
    @FunctionalInterface
    private interface AcquireStatement {
        LockSql.Outcome run(java.sql.Connection c, StoredKey key, long[] requestedAt) throws SQLException;
    }

    /** A statement of shared locks, whose failure on a table of the previous version names the DDL to run. */
    private <T> T sharedStatement(SqlWork<T> work) throws SQLException {
        try {
            return work.run();
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            throw new SQLException("lock table '" + table + "' was created by a version of Mortise without shared "
                    + "locks and lacks their columns: run " + Schema.upgradeText(dialect, table)
                    + " (or build the backend with createTableIfMissing(true), which adds them). " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    private static void checkOwner(LockRequest request) {
        if (SharedSql.SHARED_OWNER.equals(request.owner())) {
            throw new IllegalArgumentException("owner '" + SharedSql.SHARED_OWNER + "' of lock '" + request.key()
                    + "' is what the JDBC backend ('jdbc') stores for a key held shared; use the core's owner ids");
        }
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        if (grant.state() instanceof SharedKey key) {
            return calls.runIdempotent(grant.key(), "renew (shared)", c -> sharedStatement(
                    () -> shared.renewShared(c, key.stored(), grant.owner(), millis(lease))));
        }
        return calls.runIdempotent(grant.key(), "renew", c -> sql.renew(c, grant.state(), grant.owner(), millis(lease)));
    }

    /**
     * One statement for all exclusive grants on one connection, whatever their number (up to about
     * 20,000 typical holds per statement; see docs/jdbc.md), which reports only the gone ones; the
     * shared grants among them take one more statement (two on MySQL) on the same connection.
     */
    @Override
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        List<Grant> exclusive = new ArrayList<>(grants.size());
        List<Grant> sharedGrants = new ArrayList<>();
        for (Grant grant : grants) {
            (grant.state() instanceof SharedKey ? sharedGrants : exclusive).add(grant);
        }
        List<LockSql.Held> exclusiveHolds = new ArrayList<>(exclusive.size());
        for (Grant grant : exclusive) {
            exclusiveHolds.add(new LockSql.Held(grant.state(), grant.owner()));
        }
        List<LockSql.Held> sharedHolds = new ArrayList<>(sharedGrants.size());
        for (Grant grant : sharedGrants) {
            sharedHolds.add(new LockSql.Held(((SharedKey) grant.state()).stored(), grant.owner()));
        }
        String first = grants.iterator().next().key();
        long millis = millis(lease);
        BitSet[] gone = calls.runIdempotent(grants.size() == 1 ? first : null, "renew " + grants.size()
                + " locks (the first is '" + first + "')", c -> new BitSet[]{
                exclusiveHolds.isEmpty() ? new BitSet() : sql.renewAll(c, exclusiveHolds, millis),
                sharedHolds.isEmpty() ? new BitSet() : sharedStatement(() -> renewAllShared(c, sharedHolds, millis))});
        if (gone[0].isEmpty() && gone[1].isEmpty()) {
            return Set.of();
        }
        Set<Grant> lost = new HashSet<>();
        for (int i = gone[0].nextSetBit(0); i >= 0; i = gone[0].nextSetBit(i + 1)) {
            lost.add(exclusive.get(i));
        }
        for (int i = gone[1].nextSetBit(0); i >= 0; i = gone[1].nextSetBit(i + 1)) {
            lost.add(sharedGrants.get(i));
        }
        return lost;
    }

    /** Shared holds in runs of at most about a million characters of keys and owners, as the exclusive ones. */
    private BitSet renewAllShared(java.sql.Connection c, List<LockSql.Held> holds, long millis) throws SQLException {
        BitSet gone = new BitSet();
        int from = 0;
        while (from < holds.size()) {
            int to = from;
            long chars = 0;
            while (to < holds.size() && (to == from || chars + weight(holds.get(to)) <= SHARED_STATEMENT_CHARS)) {
                chars += weight(holds.get(to++));
            }
            BitSet run = shared.renewAllShared(c, holds.subList(from, to), millis);
            for (int i = run.nextSetBit(0); i >= 0; i = run.nextSetBit(i + 1)) {
                gone.set(from + i);
            }
            from = to;
        }
        return gone;
    }

    private static final long SHARED_STATEMENT_CHARS = 1_000_000;

    private static long weight(LockSql.Held held) {
        return held.key().length() + held.owner().length();
    }

    @Override
    public boolean release(Grant grant) {
        if (grant.state() instanceof SharedKey key && key.permits()) {
            boolean released = calls.run(grant.key(), "release (permits)", c -> permitStatement(
                    () -> permits.release(c, key.stored(), grant.owner())));
            if (released) {
                wakeLocalPermitWaiters(key.stored());
            }
            return released;
        }
        if (grant.state() instanceof SharedKey key) {
            return calls.run(grant.key(), "release (shared)", c -> sharedStatement(
                    () -> shared.releaseShared(c, key.stored(), grant.owner())));
        }
        return calls.run(grant.key(), "release", c -> sql.release(c, grant.state(), grant.owner()));
    }

    /**
     * One SELECT of the key's row, every expiry judged by the database's clock as the lock
     * statements judge it: an unexpired exclusive hold with its owner, token and time left; an
     * unexpired shared hold as one holder per unexpired reader, each with its own time left and
     * no token (the row keeps only the latest grant's token); otherwise free. Waiters are
     * unknown (empty): the row keeps at most one waiting writer's marker and nothing of waiting
     * readers. Takes no row lock and writes nothing.
     */
    @Override
    public KeyState inspect(String key) {
        String stored = StoredKey.of(key, keyColumnBytes).value();
        return calls.runIdempotent(key, "inspect", c -> inspection.inspect(c, stored));
    }

    @Override
    public void ping() {
        calls.runIdempotent(null, "ping the database", c -> {
            try (Statement statement = c.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                statement.execute("SELECT 1");
            }
            return null;
        });
    }

    @Override
    public void close() {
        unconfirmed.close();
        if (listener != null) {
            listener.close();
        }
    }

    @Override
    public String toString() {
        return "JdbcLockBackend[" + dialect + ", table=" + table + "]";
    }

    /**
     * The query timeout for an operation timeout: whole seconds rounded up, plus one, so the
     * network timeout (exactly the operation timeout) ends a hung call first; see NetworkTimeouts.
     */
    static int seconds(Duration timeout) {
        return (int) Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000 + 1);
    }

    /** Whole milliseconds, rounded up, at most about a century, so no SQL interval overflows. */
    static long millis(Duration lease) {
        Duration capped = lease.compareTo(Duration.ofDays(36_500)) > 0 ? Duration.ofDays(36_500) : lease;
        return Math.max(1, (capped.toNanos() + 999_999) / 1_000_000);
    }
}
