package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * Shared by the dialects' exclusive statements: those whose shape is the same everywhere —
 * renew and release of one row — written once over the dialect's clock, lease and key binding,
 * and renewAll cut into runs ({@link StatementRuns}).
 */
abstract class SqlTemplate extends Statements implements LockSql {

    private final String renew;
    private final String release;

    /**
     * @param now   the database's current time, as the dialect writes it
     * @param lease the database's current time plus one bound parameter of milliseconds
     */
    SqlTemplate(TableName table, int queryTimeoutSeconds, boolean binaryKeys, String now, String lease) {
        super(table, queryTimeoutSeconds, binaryKeys);
        this.renew = sql("UPDATE ${table} SET expires_at = " + lease
                + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + now);
        this.release = sql("UPDATE ${table} SET lock_owner = NULL, expires_at = NULL"
                + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + now);
    }

    /** Binds what every dialect's acquire statement takes first: key, owner, lease, original key. */
    final void bindAcquire(PreparedStatement statement, StoredKey key, String owner, long leaseMillis)
            throws SQLException {
        setKey(statement, 1, key.value());
        statement.setString(2, owner);
        statement.setLong(3, leaseMillis);
        statement.setString(4, key.original());
    }

    @Override
    public boolean renew(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setLong(1, leaseMillis);
            setKey(statement, 2, key);
            statement.setString(3, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            setKey(statement, 1, key);
            statement.setString(2, owner);
            return statement.executeUpdate() == 1;
        }
    }

    /** Cuts {@code holds} into runs ({@link StatementRuns}) and renews each with {@link #renewRun}. */
    @Override
    public final BitSet renewAll(Connection connection, List<Held> holds, long leaseMillis) throws SQLException {
        return StatementRuns.renew(holds, run -> renewRun(connection, run, leaseMillis));
    }

    /** One statement (two on MySQL when some hold is gone) for {@code run}; answers as {@link #renewAll}. */
    abstract BitSet renewRun(Connection connection, List<Held> run, long leaseMillis) throws SQLException;

    /** The keys of {@code holds}, in order, for dialects that bind them as an array. */
    static String[] keys(List<Held> holds) {
        return holds.stream().map(Held::key).toArray(String[]::new);
    }

    /** The owners of {@code holds}, in order. */
    static String[] owners(List<Held> holds) {
        return holds.stream().map(Held::owner).toArray(String[]::new);
    }

    /** Runs the query and sets, in the answer, each 1-based position its first column names. */
    static BitSet positionsFromOne(PreparedStatement statement) throws SQLException {
        BitSet positions = new BitSet();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                positions.set(rows.getInt(1) - 1);
            }
        }
        return positions;
    }
}
