package dev.mortise.lock.chaos;

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
 */
public final class Ledger implements AutoCloseable {

    /** What a fenced read returned: the value, and the key's token after the read. */
    public record Read(long value, long ledgerToken, Timestamp at) {
    }

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
