package dev.mortise.lock.fencing;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The one conditional statement per dialect that raises a resource's fence to a token
 * unless it is higher already, and takes the fence row's lock either way, held until the
 * caller's transaction ends. Answers the fence's token as the statement left it: equal to
 * the caller's when the write may go ahead, higher when a newer holder has written.
 */
abstract class FenceStatement {

    final String table;
    final int queryTimeoutSeconds;

    FenceStatement(String table, int queryTimeoutSeconds) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    static FenceStatement of(FenceDialect dialect, String table, int queryTimeoutSeconds) {
        return switch (dialect) {
            case POSTGRESQL -> new Postgres(table, queryTimeoutSeconds);
            case MYSQL -> new MySql(table, queryTimeoutSeconds);
            case H2 -> new H2(table, queryTimeoutSeconds);
        };
    }

    /**
     * Raises the fence of {@code resource} to {@code token} if it is not higher.
     *
     * @return {@code token} if the fence now holds it (raised, inserted, or equal already);
     *         otherwise the higher token the fence holds, or {@code -1} if it could not be read
     */
    abstract long raise(Connection connection, String resource, long token) throws SQLException;

    PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        if (queryTimeoutSeconds > 0) {
            statement.setQueryTimeout(queryTimeoutSeconds);
        }
        return statement;
    }

    /**
     * The fence's token now, read after a refused raise (the refusal path only), or -1 if there
     * is no row. MySQL reads it as a locking read: a plain read under REPEATABLE READ would see
     * the transaction's snapshot, not the row the statement just locked.
     */
    long current(Connection connection, String resource, boolean mysql) throws SQLException {
        String sql = "SELECT token FROM " + table + " WHERE resource = ?" + (mysql ? " FOR UPDATE" : "");
        try (PreparedStatement statement = prepare(connection, sql)) {
            if (mysql) {
                statement.setBytes(1, resource.getBytes(StandardCharsets.UTF_8));
            } else {
                statement.setString(1, resource);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) : -1;
            }
        }
    }

    /**
     * PostgreSQL: the conflict path locks the existing row before it evaluates the
     * {@code WHERE}, so writers of one resource queue on it until commit; 0 rows = refused.
     */
    static final class Postgres extends FenceStatement {

        private final String sql;

        Postgres(String table, int queryTimeoutSeconds) {
            super(table, queryTimeoutSeconds);
            this.sql = "INSERT INTO " + table + " AS f (resource, token) VALUES (?, ?) "
                    + "ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token WHERE f.token <= EXCLUDED.token";
        }

        @Override
        long raise(Connection connection, String resource, long token) throws SQLException {
            try (PreparedStatement statement = prepare(connection, sql)) {
                statement.setString(1, resource);
                statement.setLong(2, token);
                if (statement.executeUpdate() == 1) {
                    return token;
                }
            }
            return current(connection, resource, false);
        }
    }

    /**
     * MySQL and MariaDB: {@code ON DUPLICATE KEY UPDATE} always takes the existing row's
     * exclusive lock. The affected-row count cannot tell "set to the same token" from
     * "refused" (it depends on the driver's found-rows flag), so the statement answers in
     * the OK packet instead: {@code LAST_INSERT_ID(token the fence now holds)}, which the
     * driver hands back as the generated key. One round trip, no multi-statement text.
     */
    static final class MySql extends FenceStatement {

        private final String sql;

        MySql(String table, int queryTimeoutSeconds) {
            super(table, queryTimeoutSeconds);
            this.sql = "INSERT INTO " + table + " (resource, token) VALUES (?, LAST_INSERT_ID(?)) "
                    + "ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(GREATEST(token, VALUES(token)))";
        }

        @Override
        long raise(Connection connection, String resource, long token) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
                if (queryTimeoutSeconds > 0) {
                    statement.setQueryTimeout(queryTimeoutSeconds);
                }
                statement.setBytes(1, resource.getBytes(StandardCharsets.UTF_8));
                statement.setLong(2, token);
                statement.executeUpdate();
                try (ResultSet keys = statement.getGeneratedKeys()) {
                    if (keys.next() && keys.getLong(1) != 0) {
                        return keys.getLong(1);
                    }
                }
            }
            // An insert id of 0 reads as "none": the fence holds 0, which only a token of 0 can have put there.
            // Any other token landing here means a driver that does not report the id; read it under our lock.
            return token == 0 ? 0 : current(connection, resource, true);
        }
    }

    /**
     * H2: {@code MERGE … WHEN MATCHED AND f.token <= s.token} updates (and so locks) the row
     * only when the write may go ahead; 0 rows = refused. Two transactions inserting a new
     * resource at once can make the later one fail on the primary key; it then finds the row
     * and runs the update path, once.
     */
    static final class H2 extends FenceStatement {

        private static final String DUPLICATE_KEY = "23505";
        private final String sql;

        H2(String table, int queryTimeoutSeconds) {
            super(table, queryTimeoutSeconds);
            this.sql = "MERGE INTO " + table + " f USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) "
                    + "s(resource, token) ON f.resource = s.resource "
                    + "WHEN MATCHED AND f.token <= s.token THEN UPDATE SET token = s.token "
                    + "WHEN NOT MATCHED THEN INSERT (resource, token) VALUES (s.resource, s.token)";
        }

        @Override
        long raise(Connection connection, String resource, long token) throws SQLException {
            int rows;
            try {
                rows = merge(connection, resource, token);
            } catch (SQLException e) {
                if (!DUPLICATE_KEY.equals(e.getSQLState())) {
                    throw e;
                }
                rows = merge(connection, resource, token);
            }
            return rows == 1 ? token : current(connection, resource, false);
        }

        private int merge(Connection connection, String resource, long token) throws SQLException {
            try (PreparedStatement statement = prepare(connection, sql)) {
                statement.setString(1, resource);
                statement.setLong(2, token);
                return statement.executeUpdate();
            }
        }
    }
}
