package dev.mortise.lock.fencing;

import dev.mortise.lock.spi.SqlDatabase;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The SQL dialects {@link JdbcFenceGuard} and {@link FencedUpdate} speak. Each ships the fence
 * table's DDL as the classpath resource {@link #schemaResource()}.
 */
public enum FenceDialect {

    /** PostgreSQL 9.5 or later: {@code INSERT … ON CONFLICT (resource) DO UPDATE … WHERE}. */
    POSTGRESQL("postgresql"),
    /** MySQL 8 and MariaDB 10.6 or later: {@code INSERT … ON DUPLICATE KEY UPDATE} answering in {@code LAST_INSERT_ID}. */
    MYSQL("mysql"),
    /** H2 2.x: {@code MERGE INTO … USING … WHEN MATCHED AND … THEN UPDATE}. */
    H2("h2");

    private final String id;

    FenceDialect(String id) {
        this.id = id;
    }

    /** The classpath resource holding this dialect's {@code CREATE TABLE}, with {@code ${table}} for the table name. */
    public String schemaResource() {
        return "dev/mortise/lock/fencing/fences-" + id + ".sql";
    }

    /**
     * The {@code CREATE TABLE IF NOT EXISTS} statement for the fence table {@code table}, for
     * schema tools (Flyway, Liquibase) that create tables themselves.
     *
     * @throws IllegalArgumentException if {@code table} is not a plain (optionally schema-qualified) identifier
     */
    public String ddl(String table) {
        String name = SqlIdentifier.table(table);
        try (InputStream in = FenceDialect.class.getClassLoader().getResourceAsStream(schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("DDL resource " + schemaResource() + " is missing from lock-fencing");
            }
            StringBuilder sql = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.strip().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString().strip().replaceAll(";$", "").replace("${table}", name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}, if known:
     * {@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code H2}.
     */
    public static Optional<FenceDialect> forProductName(String productName) {
        return SqlDatabase.forProductName(productName).map(FenceDialect::of);
    }

    /**
     * The dialect a JDBC URL names, if known ({@code jdbc:postgresql:}, {@code jdbc:mysql:},
     * {@code jdbc:mariadb:}, {@code jdbc:h2:}): to set {@link JdbcFenceGuard.Builder#dialect}
     * without asking the database.
     */
    public static Optional<FenceDialect> forJdbcUrl(String url) {
        return SqlDatabase.forJdbcUrl(url).map(FenceDialect::of);
    }

    /** The dialect of {@code database}: each dialect is named as the database it speaks. */
    private static FenceDialect of(SqlDatabase database) {
        return valueOf(database.name());
    }
}
