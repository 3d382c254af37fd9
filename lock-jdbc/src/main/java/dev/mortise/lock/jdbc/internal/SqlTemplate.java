package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * Shared by the dialects: statement text with the table name in, the query timeout on
 * every statement, and the statements whose shape is the same everywhere — renew and
 * release of one row — written once over the dialect's clock, lease and key binding.
 */
abstract class SqlTemplate implements LockSql {

    /**
     * The most characters of keys and owners one renewAll statement carries (about 20,000
     * holds with 15-character keys and the core's 35-character owners): more holds take
     * more statements. Keeps every statement far below the smallest default packet limit
     * of the servers (MariaDB's 16 MiB {@code max_allowed_packet}, where MySQL's hex-encoded
     * keys take at most six bytes per character) and its row locks short.
     */
    static final int STATEMENT_CHARS = 1_000_000;

    final TableName table;
    private final int queryTimeoutSeconds;
    private final String renew;
    private final String release;

    /**
     * @param now   the database's current time, as the dialect writes it
     * @param lease the database's current time plus one bound parameter of milliseconds
     */
    SqlTemplate(TableName table, int queryTimeoutSeconds, String now, String lease) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.renew = sql("UPDATE ${table} SET expires_at = " + lease
                + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + now);
        this.release = sql("UPDATE ${table} SET lock_owner = NULL, expires_at = NULL"
                + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + now);
    }

    /** {@code sql} with {@code ${table}} replaced by the validated table name. */
    final String sql(String sql) {
        return sql.replace("${table}", table.sql());
    }

    final PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    final PreparedStatement prepareReturningKeys(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    /** Binds a stored key: as text, unless the dialect's key column wants something else. */
    void setKey(PreparedStatement statement, int index, String key) throws SQLException {
        statement.setString(index, key);
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

    /** Cuts {@code holds} into runs of at most {@link #STATEMENT_CHARS} and renews each with {@link #renewRun}. */
    @Override
    public final BitSet renewAll(Connection connection, List<Held> holds, long leaseMillis) throws SQLException {
        BitSet gone = new BitSet();
        int from = 0;
        while (from < holds.size()) {
            int to = from + 1;
            long chars = weight(holds.get(from));
            while (to < holds.size() && chars + weight(holds.get(to)) <= STATEMENT_CHARS) {
                chars += weight(holds.get(to++));
            }
            BitSet run = renewRun(connection, holds.subList(from, to), leaseMillis);
            for (int i = run.nextSetBit(0); i >= 0; i = run.nextSetBit(i + 1)) {
                gone.set(from + i);
            }
            from = to;
        }
        return gone;
    }

    private static long weight(Held held) {
        return held.key().length() + held.owner().length();
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
