package dev.mortise.lock.fencing;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.MultiLease;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Fencing enforced by the database, inside the caller's own transaction: before a
 * transaction writes what a lock protects, {@link #check} raises the resource's fence (one
 * row of the table {@code mortise_fences(resource, token)}) to the lease's fencing token,
 * or refuses with {@link StaleFencingTokenException} if a newer holder has already written.
 *
 * <pre>{@code
 * JdbcFenceGuard guard = JdbcFenceGuard.builder(dataSource).createTableIfMissing(true).build();
 * try (LockLease lease = locks.acquire("account:42", Duration.ofSeconds(5));
 *      Connection connection = dataSource.getConnection()) {
 *     connection.setAutoCommit(false);
 *     try {
 *         guard.check(connection, "account:42", lease);   // first statement of the transaction
 *         ... read and write account 42 ...
 *         connection.commit();
 *     } catch (RuntimeException | SQLException e) {
 *         connection.rollback();                          // a stale holder lands here
 *         throw e;
 *     }
 * }
 * }</pre>
 *
 * <p><b>Contract.</b> The check is one statement on the caller's connection; the guard never
 * commits, rolls back or closes it. A token equal to the fence is accepted (the same holder
 * writing again); a lower one is refused and nothing is changed by the guard. The statement
 * takes the fence row's write lock <em>whether or not it changes the token</em>, and the
 * database holds it until the caller's transaction ends, so guarded transactions on one
 * resource run one after the other: a holder whose lease ran out either commits entirely
 * before the newer holder's check returns (and the newer holder then reads its writes), or
 * is refused. Hence <b>run the check before the transaction reads what it protects</b>:
 * reads taken before it may be older than a newer holder's commit.
 *
 * <p>What it does not guarantee: writes outside a guarded transaction (another code path,
 * auto-commit statements, a different resource name) are not fenced; tokens of different lock
 * keys are not comparable, so fence one resource with the tokens of one lock key; a holder
 * whose lease ran out but whom no newer holder has overtaken yet still writes (its writes are
 * ordered before the next holder's, which is what fencing promises; add
 * {@link LockLease#ensureValid()} before commit to refuse those too). Under PostgreSQL's
 * REPEATABLE READ or SERIALIZABLE a writer queued behind another gets a serialization failure
 * instead of waiting (safe; retry the transaction).
 *
 * <p><b>Multi-key locks.</b> A {@link MultiLease} has one token per key, so
 * {@link #checkAll(Connection, MultiLease, Function)} fences one resource per part, each with
 * the token of its own part: {@code checkAll(connection, lease, key -> "balance:" + key)}.
 *
 * <p>Thread-safe; one per application and fence table.
 */
public final class JdbcFenceGuard {

    /** Longest resource name, in UTF-8 bytes, the shipped fence tables hold. */
    public static final int MAX_RESOURCE_BYTES = 255;

    /** The guard's name in messages. */
    static final String NAME = "jdbc-fence";

    private final FenceTable fenceTable;
    private final String table;
    private final Consumer<StaleFencingTokenException> onRejected;

    private JdbcFenceGuard(Builder builder, FenceTable fenceTable) {
        this.fenceTable = fenceTable;
        this.table = builder.table;
        this.onRejected = builder.onRejected;
    }

    /** Starts building a guard over the fence table in {@code dataSource}'s database. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** As {@link #check(Connection, String, LockLease)} with the lease's own key as the resource. */
    public void check(Connection connection, LockLease lease) {
        Resources.checkLease("<lease.key()>", lease, guardName());
        check(connection, lease.key(), lease.fencingToken());
    }

    /**
     * Raises {@code resource}'s fence to {@code lease.fencingToken()} inside the transaction
     * of {@code connection}, or refuses. Call it first in the transaction, while holding the lease.
     *
     * @throws StaleFencingTokenException if a newer holder has written to {@code resource}:
     *                                    roll the transaction back
     * @throws IllegalArgumentException   if {@code resource} is null, blank or over
     *                                    {@value #MAX_RESOURCE_BYTES} UTF-8 bytes, {@code lease} is
     *                                    null, or {@code connection} is null or in auto-commit mode
     * @throws FenceCheckException        if the statement failed (the database's own error is the
     *                                    cause); the transaction should roll back
     */
    public void check(Connection connection, String resource, LockLease lease) {
        Resources.checkLease(resource, lease, guardName());
        check(connection, resource, lease.fencingToken());
    }

    /** As {@link #check(Connection, String, LockLease)} with a raw fencing token (e.g. one passed between services). */
    public void check(Connection connection, String resource, long token) {
        Resources.check(resource, MAX_RESOURCE_BYTES, guardName());
        Resources.checkToken(resource, token, guardName());
        requireTransaction(connection, resource);
        FenceTable.Prepared prepared = fenceTable.before(connection, resource);
        FenceDialect dialect = prepared.dialect();
        long answer;
        try {
            answer = prepared.statement().raise(connection, resource, token);
        } catch (SQLException e) {
            throw new FenceCheckException("The fence check for resource '" + Resources.abbreviate(resource)
                    + "' with token " + token + " failed on fence table " + table + " (" + dialect + "): "
                    + e.getMessage() + ". Roll back the transaction; if the table is missing, create it (DDL: "
                    + dialect.schemaResource() + ") or build the guard with createTableIfMissing(true).",
                    resource, guardName(), e);
        }
        if (answer != token) {
            long newer = answer > token ? answer : -1;
            StaleFencingTokenException stale = new StaleFencingTokenException(
                    StaleFencingTokenException.message(resource, token, newer, "fence table " + table, true),
                    resource, guardName(), token, newer);
            notifyRejected(stale);
            throw stale;
        }
    }

    /** As {@link #checkAll(Connection, MultiLease, Function)} with each key as its own resource. */
    public void checkAll(Connection connection, MultiLease lease) {
        checkAll(connection, lease, Function.identity());
    }

    /**
     * Fences every part of a multi-key lock inside the transaction of {@code connection}: the
     * resource {@code resourceOfKey.apply(key)} of each key is raised to the fencing token of that
     * key's part ({@link MultiLease#fencingToken(String)}), as {@link #check(Connection, String, long)}
     * does for one. Call it first in the transaction, while holding the lease.
     *
     * <p>The resources are checked in ascending order of their names ({@link String#compareTo}),
     * which is the lease's canonical key order whenever the mapping keeps the order of the keys (a
     * common prefix, as above) and, whatever the mapping, one order for every guarded transaction:
     * two transactions never wait for each other's fence rows in a cycle. Every resource is
     * validated before the first statement runs. The first refusal stops the checks; the fence rows
     * already raised are undone with the transaction's rollback.
     *
     * @param resourceOfKey the fenced resource of each key of {@code lease} (e.g. the key itself);
     *                      distinct keys must map to distinct resources, since tokens of different
     *                      keys are not comparable
     * @throws StaleFencingTokenException for the first resource (in the order above) a newer holder
     *                                    of its key has written: roll the transaction back
     * @throws IllegalArgumentException   if {@code lease} or {@code resourceOfKey} is null, a resource
     *                                    is invalid (as for {@link #check(Connection, String, LockLease)}),
     *                                    two keys map to one resource, or {@code connection} is null or
     *                                    in auto-commit mode
     * @throws FenceCheckException        if a statement failed; the transaction should roll back
     */
    public void checkAll(Connection connection, MultiLease lease, Function<String, String> resourceOfKey) {
        Map<String, String> keyOfResource = resources(lease, resourceOfKey);
        for (Map.Entry<String, String> fence : keyOfResource.entrySet()) {
            check(connection, fence.getKey(), lease.fencingToken(fence.getValue()));
        }
    }

    /** The key of each resource of {@code lease}, ordered by resource; validated before any statement runs. */
    private static Map<String, String> resources(MultiLease lease, Function<String, String> resourceOfKey) {
        if (lease == null) {
            throw new IllegalArgumentException("The multi-key lease to fence is null (" + guardName() + "): pass the "
                    + "MultiLease that protects the writes (from LockClient.acquireAll).");
        }
        if (resourceOfKey == null) {
            throw new IllegalArgumentException("The resource mapping for the multi-key lock " + lease.keys() + " is "
                    + "null (" + guardName() + "): pass key -> resource, e.g. key -> key, or use checkAll(connection, "
                    + "lease).");
        }
        Map<String, String> keyOfResource = new TreeMap<>();
        for (String key : lease.keys()) {
            String resource = Resources.check(resourceOfKey.apply(key), MAX_RESOURCE_BYTES, guardName());
            String other = keyOfResource.putIfAbsent(resource, key);
            if (other != null) {
                throw new IllegalArgumentException("Keys '" + other + "' and '" + key + "' of the multi-key lock "
                        + lease.keys() + " both map to fenced resource '" + Resources.abbreviate(resource) + "' ("
                        + guardName() + "): each key has its own fencing token and tokens of different keys are "
                        + "not comparable, so one resource cannot be fenced by two keys. Map each key to a resource "
                        + "of its own, e.g. key -> \"balance:\" + key.");
            }
        }
        return keyOfResource;
    }

    /**
     * The dialect in use; {@code null} while not known yet (a guard built with
     * {@link Builder#prepareLazily(boolean)} and no dialect reads it at its first check).
     */
    public FenceDialect dialect() {
        return fenceTable.dialect();
    }

    /** The fence table's name. */
    public String table() {
        return table;
    }

    private void notifyRejected(StaleFencingTokenException stale) {
        try {
            onRejected.accept(stale);
        } catch (RuntimeException e) {
            stale.addSuppressed(e);
        }
    }

    private void requireTransaction(Connection connection, String resource) {
        if (connection == null) {
            throw new IllegalArgumentException("The connection for fenced resource '" + Resources.abbreviate(resource)
                    + "' is null (" + guardName() + "): pass the connection of the transaction that writes the resource.");
        }
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException e) {
            throw new FenceCheckException("Could not read the auto-commit mode of the connection for fenced resource '"
                    + Resources.abbreviate(resource) + "' (" + guardName() + "): " + e.getMessage(), resource, guardName(), e);
        }
        if (autoCommit) {
            throw new IllegalArgumentException("The connection for fenced resource '" + Resources.abbreviate(resource)
                    + "' is in auto-commit mode (" + guardName() + "): the fence check would commit on its own and "
                    + "protect nothing. Call connection.setAutoCommit(false) (or run inside @Transactional) and "
                    + "check before the transaction's reads and writes.");
        }
    }

    private static String guardName() {
        return NAME;
    }

    /** Configures a {@link JdbcFenceGuard}. */
    public static final class Builder {

        private final DataSource dataSource;
        private String table = "mortise_fences";
        private FenceDialect dialect;
        private boolean createTableIfMissing;
        private boolean lazily;
        private int queryTimeoutSeconds;
        private Consumer<StaleFencingTokenException> onRejected = stale -> { };

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** The fence table; default {@code mortise_fences}. A plain identifier, optionally {@code schema.table}. */
        public Builder tableName(String table) {
            this.table = SqlIdentifier.table(table);
            return this;
        }

        /**
         * The dialect; by default read from the database's product name when the guard is built
         * (at its first check with {@link #prepareLazily(boolean)}).
         */
        public Builder dialect(FenceDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * Whether {@link #build()} (or, with {@link #prepareLazily(boolean)}, the first check) creates
         * the fence table from the shipped DDL if it is missing; default false.
         */
        public Builder createTableIfMissing(boolean create) {
            this.createTableIfMissing = create;
            return this;
        }

        /**
         * Whether to leave what {@link #build()} would ask of the database (the dialect, unless set,
         * and the table, if {@link #createTableIfMissing(boolean)}) to the first check, so the guard
         * builds while the database is down; default false. The first check then reads the dialect
         * from its own connection and creates the table on a connection of its own (committed); if
         * that fails, the check throws {@link FenceCheckException} naming the table, the database and
         * the fix, and the next check tries again.
         */
        public Builder prepareLazily(boolean lazily) {
            this.lazily = lazily;
            return this;
        }

        /**
         * A JDBC query timeout for the check (rounded up to whole seconds); default none. The
         * check waits for the fence row while another guarded transaction on the resource is
         * open, as any write to the row would; the database's lock wait timeout applies too.
         */
        public Builder queryTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative()) {
                throw new IllegalArgumentException("queryTimeout must be zero (none) or positive, was " + timeout);
            }
            long millis = timeout.toMillis();
            this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000);
            return this;
        }

        /**
         * Called with each refusal, on the checking thread, before it is thrown (for metrics: the
         * starter counts {@code mortise.lock.fence.rejected}). A listener that throws is suppressed
         * into the refusal.
         */
        public Builder onRejected(Consumer<StaleFencingTokenException> listener) {
            this.onRejected = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Builds the guard: reads the dialect if none was set and creates the table if asked,
         * each on a connection of its own, committed; with {@link #prepareLazily(boolean)}, asks
         * the database nothing.
         *
         * @throws IllegalStateException if the database is not one of {@link FenceDialect}, or
         *                               could not be reached (not with {@code prepareLazily})
         */
        public JdbcFenceGuard build() {
            FenceTable fenceTable = new FenceTable(dataSource, table, dialect, createTableIfMissing,
                    queryTimeoutSeconds);
            if (!lazily) {
                fenceTable.prepareNow();
            }
            return new JdbcFenceGuard(this, fenceTable);
        }
    }
}
