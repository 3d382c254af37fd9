package dev.mortise.lock.jdbc;

import java.util.Locale;
import java.util.Optional;

/**
 * The SQL dialects the JDBC backend speaks. Each one takes, renews and releases a lock in
 * one statement, renews all of a client's locks in one statement, judges expiry by the
 * database's clock, and ships its DDL as the resource {@link #schemaResource()}.
 */
public enum JdbcDialect {

    /** PostgreSQL 9.5 or later: {@code INSERT … ON CONFLICT … DO UPDATE … RETURNING}, {@code LISTEN/NOTIFY}. */
    POSTGRESQL("postgresql"),
    /**
     * MySQL 8.0.4 and MariaDB 10.6 or later: {@code INSERT … ON DUPLICATE KEY UPDATE} with
     * {@code LAST_INSERT_ID(expr)}; renewals join the holds as {@code JSON_TABLE}.
     */
    MYSQL("mysql"),
    /** H2 2.x (in memory, file, server or {@code AUTO_SERVER} mode): {@code MERGE … USING} in a {@code FINAL TABLE}. */
    H2("h2");

    private final String id;

    JdbcDialect(String id) {
        this.id = id;
    }

    /** The classpath resource holding this dialect's {@code CREATE TABLE}, with {@code ${table}} for the table name. */
    public String schemaResource() {
        return "dev/mortise/lock/jdbc/schema-" + id + ".sql";
    }

    /**
     * The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}, if known:
     * {@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code H2}.
     */
    public static Optional<JdbcDialect> forProductName(String productName) {
        if (productName == null) {
            return Optional.empty();
        }
        String name = productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return Optional.of(POSTGRESQL);
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return Optional.of(MYSQL);
        }
        if (name.equals("h2")) {
            return Optional.of(H2);
        }
        return Optional.empty();
    }

    /**
     * The dialect for a JDBC URL, if its subprotocol names a known database:
     * {@code jdbc:postgresql:}, {@code jdbc:mysql:}, {@code jdbc:mariadb:}, {@code jdbc:h2:}.
     * Needs no connection, so a backend can be built while the database is down. Wrapping
     * drivers ({@code jdbc:p6spy:...}) are not looked through: set the dialect for them.
     */
    public static Optional<JdbcDialect> forJdbcUrl(String url) {
        if (url == null) {
            return Optional.empty();
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return Optional.of(POSTGRESQL);
        }
        if (lower.startsWith("jdbc:mysql:") || lower.startsWith("jdbc:mariadb:")) {
            return Optional.of(MYSQL);
        }
        if (lower.startsWith("jdbc:h2:")) {
            return Optional.of(H2);
        }
        return Optional.empty();
    }
}
