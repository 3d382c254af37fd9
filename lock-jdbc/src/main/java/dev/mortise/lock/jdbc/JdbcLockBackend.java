package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.jdbc.internal.Dialects;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.PushedWait;
import dev.mortise.lock.jdbc.internal.ReleaseListener;
import dev.mortise.lock.jdbc.internal.ReleaseSignals;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.jdbc.internal.UnconfirmedGrants;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import javax.sql.DataSource;
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
 * <p>Thread-safe. Closing it stops the LISTEN thread; the data source belongs to the caller.
 *
 * <pre>{@code
 * LockClient locks = LockClient.builder(JdbcLockBackend.builder(dataSource).build()).build();
 * }</pre>
 */
public final class JdbcLockBackend implements LockBackend {

    private final JdbcDialect dialect;
    private final TableName table;
    private final LockSql sql;
    private final JdbcCalls calls;
    private final int keyColumnBytes;
    private final int queryTimeoutSeconds;
    private final long pushedPollNanos;
    private final long listenStartNanos;
    private final ReleaseSignals signals = new ReleaseSignals();
    private final ReleaseListener listener;
    private final BackendGuarantees guarantees;
    private final UnconfirmedGrants unconfirmed;

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
        this.calls = new JdbcCalls(builder.dataSource, table, builder.operationTimeout);
        if (tableOwed) {
            int seconds = queryTimeoutSeconds;
            calls.setUpOnFirstUse(c -> {
                Schema.createIfMissing(c, dialect, table, seconds);
                return null;
            });
        }
        this.keyColumnBytes = builder.keyColumnBytes;
        this.unconfirmed = new UnconfirmedGrants(sql, calls, builder.operationTimeout);
        this.pushedPollNanos = builder.pushedPollInterval.toNanos();
        this.listenStartNanos = builder.operationTimeout.toNanos();
        this.listener = builder.listen
                ? Dialects.listener(dialect, builder.dataSource, table, signals, queryTimeoutSeconds,
                builder.operationTimeout) : null;
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

    @Override
    public Attempt tryAcquire(LockRequest request) {
        StoredKey key = StoredKey.of(request.key(), keyColumnBytes);
        long[] requestedAt = {0};
        long[] firstSent = {0};
        LockSql.Outcome outcome;
        try {
            outcome = calls.runIdempotent(request.key(), "acquire", c -> {
                if (requestedAt[0] != 0 && firstSent[0] == 0) {
                    firstSent[0] = requestedAt[0]; // an earlier send lost its connection: it may still commit
                }
                return sql.acquire(c, key, request.owner(), millis(request.lease()), requestedAt);
            });
        } catch (LockBackendException e) {
            if (requestedAt[0] != 0) {
                // Sent, but no answer: the server may have granted it, or may still. Nobody will renew that owner.
                unconfirmed.release(request.key(), key.value(), request.owner(),
                        firstSent[0] != 0 ? firstSent[0] : requestedAt[0], millis(request.lease()));
            }
            throw e;
        }
        if (!outcome.isGranted() && firstSent[0] != 0) {
            // Busy on the resend, but the first send (whose connection broke) may still commit a grant later.
            unconfirmed.release(request.key(), key.value(), request.owner(), firstSent[0], millis(request.lease()));
        }
        if (outcome.isGranted()) {
            return Attempt.granted(new Grant(request.key(), request.owner(), outcome.token(), requestedAt[0], key.value()));
        }
        return Attempt.busy(outcome.remainingMillis() < 0 ? null : Duration.ofMillis(outcome.remainingMillis()));
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        if (listener == null) {
            return BackoffPolling.acquire(this, request, wait);
        }
        return new PushedWait(this, listener, signals, pushedPollNanos, listenStartNanos).acquire(request,
                StoredKey.of(request.key(), keyColumnBytes).value(), wait);
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        return calls.runIdempotent(grant.key(), "renew", c -> sql.renew(c, grant.state(), grant.owner(), millis(lease)));
    }

    /**
     * One statement for all grants on one connection, whatever their number (up to about
     * 20,000 typical holds per statement; see docs/jdbc.md), which reports only the gone ones.
     */
    @Override
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        List<Grant> ordered = List.copyOf(grants);
        List<LockSql.Held> holds = new ArrayList<>(ordered.size());
        for (Grant grant : ordered) {
            holds.add(new LockSql.Held(grant.state(), grant.owner()));
        }
        String first = ordered.get(0).key();
        BitSet gone = calls.runIdempotent(ordered.size() == 1 ? first : null, "renew " + ordered.size()
                + " locks (the first is '" + first + "')", c -> sql.renewAll(c, holds, millis(lease)));
        if (gone.isEmpty()) {
            return Set.of();
        }
        Set<Grant> lost = new HashSet<>();
        for (int i = gone.nextSetBit(0); i >= 0; i = gone.nextSetBit(i + 1)) {
            lost.add(ordered.get(i));
        }
        return lost;
    }

    @Override
    public boolean release(Grant grant) {
        return calls.run(grant.key(), "release", c -> sql.release(c, grant.state(), grant.owner()));
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
