package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.jdbc.JdbcDialect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The shipped DDL of a dialect, and creating the table from it when it is missing. */
public final class Schema {

    private Schema() {
    }

    /** The {@code CREATE TABLE IF NOT EXISTS} statement for {@code table}. */
    public static String ddl(JdbcDialect dialect, TableName table) {
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("DDL resource " + dialect.schemaResource() + " is missing from lock-jdbc");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            StringBuilder sql = new StringBuilder();
            for (String line : text.split("\n")) {
                if (!line.strip().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString().strip().replaceAll(";$", "").replace("${table}", table.sql());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Creates the table if it is missing. Two backends starting at once may both try;
     * PostgreSQL can then fail one of them even with {@code IF NOT EXISTS}, so a failure
     * is ignored when the table is there afterwards.
     */
    public static void createIfMissing(Connection connection, JdbcDialect dialect, TableName table, int timeoutSeconds)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.execute(ddl(dialect, table));
        } catch (SQLException e) {
            if (!exists(connection, table, timeoutSeconds)) {
                throw e;
            }
        }
    }

    private static boolean exists(Connection connection, TableName table, int timeoutSeconds) {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.executeQuery("SELECT lock_key FROM " + table.sql() + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
