package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractSuite;
import org.junit.jupiter.api.AfterEach;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The contract suite on one database: every backend of a test class shares one data
 * source, as processes share a database. The hooks look at the table directly, judging
 * expiry by the database's clock.
 */
abstract class JdbcContractTest extends LockBackendContractSuite {

    /**
     * Closes leases a test left open on this thread. The suite's
     * {@code lockViewLocksUnlocksAndRefusesForeignUnlock} ends with a {@code tryLock()} it never
     * unlocks, and closing its client does not take the lease off the thread's
     * {@code LockContext}, so a later class in the same JVM would see it in
     * {@code lockContextShowsTheInnermostLeaseOfTheThread}. Runs before the suite closes its clients.
     */
    @AfterEach
    void closeLeasesLeftOnThisThread() {
        for (LockLease lease : LockContext.all()) {
            try {
                lease.close();
            } catch (LockException ignored) {
                // lost or unreachable: it only had to leave the thread's context
            }
        }
    }

    /** Pools of the wire-level suite's backends (through a proxy), closed with the class. */
    private static final java.util.List<com.zaxxer.hikari.HikariDataSource> WIRE_POOLS =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    @org.junit.jupiter.api.AfterAll
    static void closeWirePools() {
        WIRE_POOLS.forEach(com.zaxxer.hikari.HikariDataSource::close);
        WIRE_POOLS.clear();
    }

    /** A backend of this test's kind on a small pool of its own to {@code url} (the wire suite's proxy). */
    protected LockBackend backendOnPool(String url, String user) {
        com.zaxxer.hikari.HikariDataSource pool = TestDatabases.pool("wire", url, user, 4, 5000);
        WIRE_POOLS.add(pool);
        return configure(JdbcLockBackend.builder(pool).createTableIfMissing(true)).build();
    }

    /** The shared data source of the database under test. */
    protected abstract DataSource dataSource();

    /** The database's current time in SQL. */
    protected abstract String now();

    protected JdbcLockBackendBuilder configure(JdbcLockBackendBuilder builder) {
        return builder;
    }

    @Override
    protected LockBackend newBackend() {
        return configure(JdbcLockBackend.builder(dataSource()).createTableIfMissing(true)).build();
    }

    @Override
    protected void breakHold(LockLease lease) throws SQLException {
        int changed = update("UPDATE mortise_locks SET lock_owner = NULL, expires_at = NULL WHERE lock_key = ?",
                stored(lease.key()));
        if (changed != 1) {
            throw new AssertionError("no row for " + lease.key());
        }
    }

    /** A live hold (exclusive or shared) or an unexpired writer's marker: what a wait must not leave behind. */
    @Override
    protected int residueOnServer(String key) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM mortise_locks WHERE lock_key = ?"
                     + " AND ((lock_owner IS NOT NULL AND expires_at > " + now() + ")"
                     + " OR (waiting_writer IS NOT NULL AND writer_waits_until > " + now() + "))")) {
            s.setString(1, stored(key));
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    /**
     * The rows of {@code holderIds} in the wait table, expired ones included. Expired rows stay until
     * the next write of any backend on the table sweeps them (the database sweeps nothing by itself),
     * so the hook first makes one such write, through a backend of its own (a record under an id of
     * its own, published and removed), and then counts every row, live or not.
     */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        try (LockBackend backend = newBackend()) {
            var records = backend.waitRecords().orElseThrow();
            java.util.List<String> own = java.util.List.of(String.format("%016x", System.nanoTime()));
            records.publish(own, "sweep", "sweep", java.time.Duration.ofSeconds(30));
            records.remove(own, "sweep");
        }
        if (holderIds.isEmpty()) {
            return 0;
        }
        String marks = String.join(", ", java.util.Collections.nCopies(holderIds.size(), "?"));
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM mortise_locks_waits WHERE holder_id IN ("
                     + marks + ")")) {
            int index = 1;
            for (String id : holderIds) {
                s.setString(index++, id);
            }
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    static String stored(String key) {
        return StoredKey.of(key, JdbcLockBackendBuilder.DEFAULT_KEY_COLUMN_BYTES).value();
    }

    int update(String sql, Object... parameters) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            return s.executeUpdate();
        }
    }
}
