package dev.mortise.lock.chaos;

import dev.mortise.lock.fencing.FenceDialect;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.List;

/**
 * The harness-owned store the workers increment: one PostgreSQL table {@code ledger} (a
 * counter and the highest fencing token seen per key) and an append-only {@code ledger_log}
 * of every write attempt, accepted or rejected.
 *
 * <p>This is the storage-side check of seed 004: the ledger, not the lock client, decides
 * whether a write is stale. Both the read and the write carry the worker's token. The read
 * raises the key's token to the reader's ({@code GREATEST}), so a holder whose lease has been
 * taken over is fenced out as soon as the new holder has <em>read</em>, not only once it has
 * written; without that, an old holder's write landing between the new holder's read and
 * write would be accepted (its token is still the highest written) and one increment would
 * be lost. Each write is one conditional statement, logged in the same statement.
 *
 * <p>In the {@link LedgerMode#GUARD} mode the fence is {@code lock-fencing}'s
 * {@link JdbcFenceGuard} on table {@value #FENCE_TABLE} instead: {@link #readGuarded} and
 * {@link #writeGuarded} each run one transaction whose first statement is the guard's check,
 * and the write carries no token condition of its own; a refused write is rolled back and then
 * logged as rejected, as the builtin statement logs it.
 */
public final class Ledger implements AutoCloseable {

    /** What a fenced read returned: the value, and the key's token after the read. */
    public record Read(long value, long ledgerToken, Timestamp at) {
    }

    /** The fence table of the guard mode, recreated empty with the ledger on every {@link #reset}. */
    public static final String FENCE_TABLE = "mortise_fences";

    private final Connection connection;

    private Ledger(Connection connection) {
        this.connection = connection;
    }

    /** Opens a connection (autocommit) to the ledger database. */
    public static Ledger connect(String jdbcUrl, String user) throws SQLException {
        Connection connection = DriverManager.getConnection(jdbcUrl, user, "");
        connection.setAutoCommit(true);
        return new Ledger(connection);
    }

    /** Drops and recreates both tables with the given keys at value 0, token 0: one ledger per run. */
    public void reset(List<String> keys) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("DROP TABLE IF EXISTS ledger_log");
            s.execute("DROP TABLE IF EXISTS ledger");
            // A fence outlives nothing: a fresh lock server starts its tokens again from the bottom.
            s.execute("DROP TABLE IF EXISTS " + FENCE_TABLE);
            s.execute(FenceDialect.POSTGRESQL.ddl(FENCE_TABLE));
            s.execute("CREATE TABLE ledger (key TEXT PRIMARY KEY, value BIGINT NOT NULL, token BIGINT NOT NULL)");
            s.execute("CREATE TABLE ledger_log (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, worker TEXT NOT NULL,"
                    + " token BIGINT NOT NULL, value_read BIGINT NOT NULL, value_written BIGINT NOT NULL,"
                    + " accepted BOOLEAN NOT NULL, read_at TIMESTAMPTZ NOT NULL, written_at TIMESTAMPTZ NOT NULL)");
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO ledger VALUES (?, 0, 0)")) {
            for (String key : keys) {
                insert.setString(1, key);
                insert.executeUpdate();
            }
        }
    }

    /** Reads the key's value and raises its token to {@code token} (never lowers it). */
    public Read read(String key, long token) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "UPDATE ledger SET token = GREATEST(token, ?) WHERE key = ? RETURNING value, token, clock_timestamp()")) {
            s.setLong(1, token);
            s.setString(2, key);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no ledger row for key " + key);
                }
                return new Read(rs.getLong(1), rs.getLong(2), rs.getTimestamp(3));
            }
        }
    }

    /**
     * Writes {@code valueWritten} if {@code token} is at least the key's highest token, and logs
     * the attempt either way - one statement, so the log cannot disagree with the ledger.
     *
     * @return whether the ledger accepted the write
     */
    public boolean write(String key, long token, String worker, long valueRead, long valueWritten, Timestamp readAt)
            throws SQLException {
        return write(key, token, worker, valueRead, valueWritten, readAt, true);
    }

    /**
     * As {@link #write(String, long, String, long, long, Timestamp)}, or, with {@code fenced}
     * false, accepting every write whatever its token: the negative control that shows the
     * checker does see the damage fencing prevents.
     */
    public boolean write(String key, long token, String worker, long valueRead, long valueWritten, Timestamp readAt,
                         boolean fenced) throws SQLException {
        String condition = fenced ? "token <= ?" : "? IS NOT NULL";
        try (PreparedStatement s = connection.prepareStatement(
                "WITH upd AS (UPDATE ledger SET value = ?, token = GREATEST(token, ?) WHERE key = ? AND " + condition
                        + " RETURNING 1)"
                        + " INSERT INTO ledger_log (key, worker, token, value_read, value_written, accepted, read_at,"
                        + " written_at) SELECT ?, ?, ?, ?, ?, EXISTS (SELECT 1 FROM upd), ?, clock_timestamp()"
                        + " RETURNING accepted")) {
            s.setLong(1, valueWritten);
            s.setLong(2, token);
            s.setString(3, key);
            s.setLong(4, token);
            s.setString(5, key);
            s.setString(6, worker);
            s.setLong(7, token);
            s.setLong(8, valueRead);
            s.setLong(9, valueWritten);
            s.setTimestamp(10, readAt);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * The guard of the {@link LedgerMode#GUARD} mode on the ledger database (the table is made
     * by {@link #reset}).
     */
    public static JdbcFenceGuard guard(String jdbcUrl, String user) {
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        dataSource.setUser(user);
        return JdbcFenceGuard.builder(dataSource).tableName(FENCE_TABLE).dialect(FenceDialect.POSTGRESQL).build();
    }

    /**
     * The guard mode's read: one transaction that first raises the key's fence to {@code token}
     * ({@code guard.check}) and then reads the value. A refused check (a newer holder has read or
     * written) is rolled back and the value read without the fence: the write that follows is
     * refused by the fence in any case, as the builtin read lets a stale reader go on to its
     * refused write. {@link Read#ledgerToken} is the reader's token, or the newer one on a refusal.
     */
    public Read readGuarded(JdbcFenceGuard guard, String key, long token) throws SQLException {
        long fence = token;
        connection.setAutoCommit(false);
        try {
            try {
                guard.check(connection, key, token);
            } catch (StaleFencingTokenException e) {
                connection.rollback();
                fence = e.newerToken();
            }
            Read read;
            try (PreparedStatement s = connection.prepareStatement(
                    "SELECT value, clock_timestamp() FROM ledger WHERE key = ?")) {
                s.setString(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("no ledger row for key " + key);
                    }
                    read = new Read(rs.getLong(1), fence, rs.getTimestamp(2));
                }
            }
            connection.commit();
            return read;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /**
     * The guard mode's write: one transaction of {@code guard.check(connection, key, token)}
     * first, then the ledger's write and its log row with no token condition, then commit. A
     * {@link StaleFencingTokenException} rolls the transaction back, and the attempt is then
     * logged as rejected (a statement of its own: the rolled-back transaction cannot log it).
     *
     * @return whether the write was accepted (committed)
     */
    public boolean writeGuarded(JdbcFenceGuard guard, String key, long token, String worker, long valueRead,
                                long valueWritten, Timestamp readAt) throws SQLException {
        connection.setAutoCommit(false);
        try {
            guard.check(connection, key, token);
            boolean accepted = write(key, token, worker, valueRead, valueWritten, readAt, false);
            connection.commit();
            return accepted;
        } catch (StaleFencingTokenException e) {
            connection.rollback();
            connection.setAutoCommit(true);
            logRejected(key, token, worker, valueRead, valueWritten, readAt);
            return false;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** Logs a write attempt the fence refused; the ledger row is left as it was. */
    private void logRejected(String key, long token, String worker, long valueRead, long valueWritten,
                             Timestamp readAt) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "INSERT INTO ledger_log (key, worker, token, value_read, value_written, accepted, read_at, written_at)"
                        + " VALUES (?, ?, ?, ?, ?, FALSE, ?, clock_timestamp())")) {
            s.setString(1, key);
            s.setString(2, worker);
            s.setLong(3, token);
            s.setLong(4, valueRead);
            s.setLong(5, valueWritten);
            s.setTimestamp(6, readAt);
            s.executeUpdate();
        }
    }

    /**
     * Whether the ledger has logged a write by {@code worker} on {@code key} with {@code token}:
     * after a SIGSTOP, whether the write had already reached the ledger (a stop that lands
     * between the write and the worker's log line would otherwise look like a hit).
     */
    public boolean writeLogged(String worker, String key, long token) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT EXISTS (SELECT 1 FROM ledger_log WHERE worker = ? AND key = ? AND token = ?)")) {
            s.setString(1, worker);
            s.setString(2, key);
            s.setLong(3, token);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** The underlying connection, for the checker's queries. */
    Connection connection() {
        return connection;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
