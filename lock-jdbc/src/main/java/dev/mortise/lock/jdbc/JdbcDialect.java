package dev.mortise.lock.jdbc;

import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.spi.SqlDatabase;

import java.util.Optional;

/**
 * The SQL dialects the JDBC backend speaks. Each one takes, renews and releases a lock in
 * one statement, renews all of a client's locks in one statement, judges expiry by the
 * database's clock, and ships its DDL as the resource {@link #schemaResource()}.
 */
public enum JdbcDialect {

    /** PostgreSQL 9.5 or later: {@code INSERT … ON CONFLICT … DO UPDATE … RETURNING}, {@code LISTEN/NOTIFY}. */
    POSTGRESQL,
    /**
     * MySQL 8.0.4 and MariaDB 10.6 or later: {@code INSERT … ON DUPLICATE KEY UPDATE} with
     * {@code LAST_INSERT_ID(expr)}; renewals join the holds as {@code JSON_TABLE}.
     */
    MYSQL,
    /** H2 2.x (in memory, file, server or {@code AUTO_SERVER} mode): {@code MERGE … USING} in a {@code FINAL TABLE}. */
    H2;

    /**
     * The classpath resource holding this dialect's {@code CREATE TABLE} statements, with {@code ${table}} for the
     * table name: the lock table, then the table of wait records (deadlock detection), {@code ${table}_waits}.
     */
    public String schemaResource() {
        return Schema.resource(database());
    }

    /** The database this dialect speaks: what the backend's statements are chosen by. */
    SqlDatabase database() {
        return SqlDatabase.valueOf(name());
    }

    /**
     * The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}, if known:
     * {@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code H2}.
     */
    public static Optional<JdbcDialect> forProductName(String productName) {
        return SqlDatabase.forProductName(productName).map(JdbcDialect::of);
    }

    /**
     * The dialect for a JDBC URL, if its subprotocol names a known database:
     * {@code jdbc:postgresql:}, {@code jdbc:mysql:}, {@code jdbc:mariadb:}, {@code jdbc:h2:}.
     * Needs no connection, so a backend can be built while the database is down. Wrapping
     * drivers ({@code jdbc:p6spy:...}) are not looked through: set the dialect for them.
     */
    public static Optional<JdbcDialect> forJdbcUrl(String url) {
        return SqlDatabase.forJdbcUrl(url).map(JdbcDialect::of);
    }

    /** The dialect of {@code database}: each dialect is named as the database it speaks. */
    private static JdbcDialect of(SqlDatabase database) {
        return valueOf(database.name());
    }
}
