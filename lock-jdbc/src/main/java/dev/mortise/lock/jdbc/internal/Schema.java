package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.SqlDatabase;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The shipped DDL of a dialect, creating the table from it when it is missing, and bringing a
 * table of an earlier version (without the columns of shared locks, or PostgreSQL's
 * {@code waiters}) up to date; and the table of wait records beside it ({@link TableName#waits()}),
 * which the same resource creates.
 */
public final class Schema {

    /** The columns shared (read) locks added to the table, per dialect. */
    private static List<String> sharedColumns(SqlDatabase dialect) {
        return switch (dialect) {
            case POSTGRESQL -> List.of("shared_holds JSONB", "waiting_writer VARCHAR(255)",
                    "writer_waits_until TIMESTAMP(6) WITH TIME ZONE");
            case MYSQL -> List.of("shared_holds JSON",
                    "waiting_writer VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                    "writer_waits_until DATETIME(6)");
            case H2 -> List.of("shared_holds CHARACTER VARYING ARRAY", "waiting_writer VARCHAR(255)",
                    "writer_waits_until TIMESTAMP(6) WITH TIME ZONE");
        };
    }

    /**
     * The columns added after shared locks, per dialect: PostgreSQL's record of waiters
     * ({@link PgWaiters}) and every dialect's semaphore counts ({@link PermitSql}; without it semaphore
     * requests fail naming the ALTER TABLE). A table without them keeps working, at some cost (every release notifies).
     */
    private static List<String> laterColumns(SqlDatabase dialect) {
        return switch (dialect) {
            case POSTGRESQL -> List.of(PgWaiters.COLUMN, PERMITS_POSTGRES);
            case MYSQL -> List.of(PERMITS_MYSQL);
            case H2 -> List.of(PERMITS_H2);
        };
    }

    /** MySQL's/MariaDB's column of native semaphores: {@code {"limit": n, "holds": [[owner, count], …], "g": …}}. */
    public static final String PERMITS_MYSQL = "permits JSON";

    /** H2's column of native semaphores: the stored count, then each hold's count as 10 digits and its owner. */
    public static final String PERMITS_H2 = "permits CHARACTER VARYING ARRAY";

    /** PostgreSQL's column of native semaphores: {@code {"limit": n, "holds": {owner: count}}}. */
    public static final String PERMITS_POSTGRES = "permits JSONB";

    private static List<String> allAddedColumns(SqlDatabase dialect) {
        List<String> columns = new java.util.ArrayList<>(sharedColumns(dialect));
        columns.addAll(laterColumns(dialect));
        return columns;
    }

    private Schema() {
    }

    /**
     * The classpath resource holding {@code dialect}'s {@code CREATE TABLE} statements, with {@code ${table}} for the
     * table name: the lock table's, then that of the wait records, {@code ${table}_waits}.
     */
    public static String resource(SqlDatabase dialect) {
        return "dev/mortise/lock/jdbc/schema-" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
    }

    /** The {@code CREATE TABLE IF NOT EXISTS} statement for {@code table}. */
    public static String ddl(SqlDatabase dialect, TableName table) {
        return statements(dialect, table).get(0);
    }

    /**
     * The {@code CREATE TABLE IF NOT EXISTS} statement for the table of wait records beside
     * {@code table} ({@link TableName#waits()}), its index included.
     */
    public static String waitsDdl(SqlDatabase dialect, TableName table) {
        return statements(dialect, table).get(1);
    }

    /** The resource's statements, comment lines dropped and names put in: the lock table's, then the wait records'. */
    private static List<String> statements(SqlDatabase dialect, TableName table) {
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(resource(dialect))) {
            if (in == null) {
                throw new IllegalStateException("DDL resource " + resource(dialect) + " is missing from lock-jdbc");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.strip().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            // ${table}_waits first: a long table name's wait table is cut to fit (TableName.waits())
            String named = sql.toString().replace("${table}_waits", table.waits().sql()).replace("${table}", table.sql());
            return java.util.Arrays.stream(named.split(";\\s*\\n")).map(String::strip).filter(s -> !s.isEmpty())
                    .map(s -> s.replaceAll(";$", "")).collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The statements that add the columns of shared locks (and, on PostgreSQL, the record of
     * waiters) to a table created by an earlier version, one per column, for error messages and
     * {@link #createIfMissing}.
     */
    public static List<String> upgradeDdl(SqlDatabase dialect, TableName table) {
        return allAddedColumns(dialect).stream().map(column -> "ALTER TABLE " + table.sql() + " ADD COLUMN " + column)
                .collect(Collectors.toList());
    }

    /** {@link #upgradeDdl} as one line of text. */
    public static String upgradeText(SqlDatabase dialect, TableName table) {
        return String.join("; ", upgradeDdl(dialect, table));
    }

    /**
     * Whether {@code e} says a column is missing: PostgreSQL 42703, MySQL/MariaDB 1054 (42S22),
     * H2 42122 — what a table of the previous version answers to a statement of shared locks.
     */
    public static boolean missingColumn(SQLException e) {
        String state = e.getSQLState();
        return "42703".equals(state) || "42S22".equals(state) || "42122".equals(state) || e.getErrorCode() == 1054;
    }

    /**
     * Creates the table if it is missing, adds the columns of shared locks and of waiters
     * (PostgreSQL) that a table of an earlier version lacks, and creates the table of wait records
     * beside it if that is missing. Two backends starting at once may both try; PostgreSQL can
     * then fail one of them even with {@code IF NOT EXISTS}, so a failure is ignored when the
     * table (or column) is there afterwards.
     */
    public static void createIfMissing(Connection connection, SqlDatabase dialect, TableName table, int timeoutSeconds)
            throws SQLException {
        createLockTable(connection, dialect, table, timeoutSeconds);
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.execute(waitsDdl(dialect, table));
        } catch (SQLException e) {
            if (!selects(connection, "holder_id", table.waits(), timeoutSeconds)) {
                throw e;
            }
        }
    }

    private static void createLockTable(Connection connection, SqlDatabase dialect, TableName table, int timeoutSeconds)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.execute(ddl(dialect, table));
        } catch (SQLException e) {
            if (!selects(connection, "lock_key", table, timeoutSeconds)) {
                throw e;
            }
        }
        List<String> columns = allAddedColumns(dialect);
        String names = columns.stream().map(column -> column.substring(0, column.indexOf(' ')))
                .collect(Collectors.joining(", "));
        if (selects(connection, names, table, timeoutSeconds)) {
            return;
        }
        List<String> alters = upgradeDdl(dialect, table);
        for (int i = 0; i < columns.size(); i++) {
            String column = columns.get(i).substring(0, columns.get(i).indexOf(' '));
            if (selects(connection, column, table, timeoutSeconds)) {
                continue;
            }
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(timeoutSeconds);
                statement.execute(alters.get(i));
            } catch (SQLException e) {
                if (!selects(connection, column, table, timeoutSeconds)) {
                    throw e;
                }
            }
        }
    }

    private static boolean selects(Connection connection, String columns, TableName table, int timeoutSeconds) {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.executeQuery("SELECT " + columns + " FROM " + table.sql() + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
