package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.jdbc.internal.DialectSql;
import dev.mortise.lock.jdbc.internal.Dialects;
import dev.mortise.lock.jdbc.internal.InspectSql;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.jdbc.internal.JdbcWaitRecords;
import dev.mortise.lock.jdbc.internal.ReleaseListener;
import dev.mortise.lock.jdbc.internal.ReleaseSignals;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.jdbc.internal.hold.Holds;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.SqlDatabase;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitRecords;
import dev.mortise.lock.spi.WaitSteps;

import javax.sql.DataSource;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

    private final JdbcDialect dialect;
    private final TableName table;
    private final JdbcCalls calls;
    private final InspectSql inspection;
    private final int queryTimeoutSeconds;
    private final int keyColumnBytes;
    /** The LISTEN connection (PostgreSQL), or null where waiters poll. */
    private final ReleaseListener listener;
    /** The drivers of the three kinds of hold, the batch path and the renewals. */
    private final Holds holds;
    private final BackendGuarantees guarantees;
    private final JdbcWaitRecords waitRecords;

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
        this.keyColumnBytes = builder.keyColumnBytes;
        boolean serverClock = builder.fencingTokens == FencingTokens.SERVER_CLOCK;
        SqlDatabase database = dialect.database();
        ReleaseSignals signals = new ReleaseSignals();
        this.listener = builder.listen
                ? Dialects.listener(database, builder.dataSource, table, signals, queryTimeoutSeconds,
                builder.operationTimeout) : null;
        // a backend that hears no NOTIFY polls, so its waits record no interest that would make releases notify
        DialectSql sql = Dialects.statements(database, table, queryTimeoutSeconds, serverClock, listener != null);
        this.inspection = sql.inspection();
        this.calls = new JdbcCalls(builder.dataSource, table, builder.operationTimeout);
        int seconds = queryTimeoutSeconds;
        if (tableOwed) {
            calls.setUpOnFirstUse(c -> {
                Schema.createIfMissing(c, database, table, seconds);
                return null;
            });
        }
        if (builder.createTable) {
            calls.recreateTableWhenMissing(c -> {
                Schema.createIfMissing(c, database, table, seconds);
                return null;
            });
        }
        JdbcWait waits = new JdbcWait(listener, signals, builder.pushedPollInterval.toNanos(),
                builder.operationTimeout.toNanos());
        this.holds = new Holds(sql, calls, waits, signals, listener != null, keyColumnBytes,
                builder.operationTimeout, table, Schema.upgradeText(database, table));
        this.waitRecords = JdbcWaitRecords.of(database, table, calls, queryTimeoutSeconds);
        this.guarantees = new BackendGuarantees(BackendGuarantees.LeaseModel.TIME_BOUND, false,
                listener != null ? BackendGuarantees.Wakeup.PUSH : BackendGuarantees.Wakeup.POLL,
                serverClock ? FENCING_SERVER_CLOCK : FENCING_COUNTER, Duration.ofMillis(1));
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

    /**
     * The table of wait records (deadlock detection) as used in SQL: the lock table's name with
     * {@code _waits} appended, in the same schema (a last part over 57 characters cut to 57 first).
     */
    public String waitTableName() {
        return table.waits().sql();
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
        return true;
    }

    /**
     * One statement: changes the stored count if permit holds are live, and wakes recorded waiters.
     * Without a release listener (MySQL/MariaDB, H2, or {@code listenForReleases(false)}) waiters
     * poll; this backend's own permit waiters (each acquisition is its own owner, so they wait
     * here rather than in the core's gate) are woken at once by its own releases and count changes.
     */
    @Override
    public void setPermits(String key, int limit) {
        holds.setPermits(key, limit);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Holds.checkOwner(request);
        return holds.driver(request).tryAcquire(request);
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
        return holds.tryAcquireAll(requests);
    }

    /**
     * Waits for the key, on this thread ({@link WaitDriver#await}); the same loop as
     * {@link #acquireAsync}. PostgreSQL waiters are woken by NOTIFY, the others poll. An exclusive
     * request leaves, with each attempt that finds the key busy, a marker on the row that keeps
     * new readers out until it is granted or gives up (it lasts until the next attempt is due and
     * never past the deadline, and is removed when the wait ends without a grant). On PostgreSQL
     * every waiting request's refused attempt also records it in the row's {@code waiters} for as
     * long, so that releases notify only while somebody waits (see docs/jdbc.md, "Waiting").
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        Holds.checkOwner(request);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
        }
        return WaitDriver.await(holds.waitFor(request, wait), request.key());
    }

    /**
     * Waits for the key as {@link #acquire} does, the same steps run by {@link WaitDriver#start}: each
     * attempt on the shared {@link dev.mortise.lock.spi.AsyncWaits} threads, and no thread held between
     * attempts, the sleep being a future that a NOTIFY of the key (PostgreSQL), LISTEN coming up, or a
     * timer completes. What the wait leaves on the row (the writer's marker, the waiter's record) is
     * removed when it ends without a grant, a cancel included; a grant that comes after a cancel is
     * released.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        WaitSteps steps;
        try {
            Holds.checkOwner(request);
            steps = holds.waitFor(request, wait);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return WaitDriver.start(this, steps);
    }

    /** Sets the row's expiry to {@code lease} from now by the database's clock: the lease asked for is the one in force. */
    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return holds.driver(grant).renew(grant, lease) ? Optional.of(lease) : Optional.empty();
    }

    /**
     * One statement for all exclusive grants on one connection, whatever their number (up to about
     * 20,000 typical holds per statement; see docs/jdbc.md), which reports only the gone ones; the
     * shared grants among them take one more statement (two on MySQL) on the same connection.
     */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return Renewals.of(holds.renewAll(grants, lease), lease);
    }

    @Override
    public boolean release(Grant grant) {
        return holds.driver(grant).release(grant);
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

    /**
     * Rows of {@link #waitTableName()}, created and brought along with the lock table (the shipped DDL,
     * {@code createTableIfMissing}): one per holder id, its expiry computed by the database's clock.
     * Reads skip expired rows; every publish and remove also deletes up to 256 expired rows. Each call is
     * one statement on PostgreSQL, and a write and its sweep on MySQL/MariaDB and H2, whatever the number
     * of holder ids; see docs/jdbc.md, "Wait records (deadlock detection)".
     */
    @Override
    public Optional<WaitRecords> waitRecords() {
        return Optional.of(waitRecords);
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
        holds.close();
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
}
