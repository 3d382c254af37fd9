package dev.mortise.lock.spi;

import java.util.Locale;
import java.util.Optional;

/**
 * The SQL databases Mortise's JDBC modules speak, as told by a JDBC URL or a connection's product
 * name: the one place that knows which names mean which database, for lock-jdbc's
 * {@code JdbcDialect} and lock-fencing's {@code FenceDialect} alike. For module writers (SPI).
 */
public enum SqlDatabase {

    /** PostgreSQL. */
    POSTGRESQL,
    /** MySQL, and MariaDB, which speaks its SQL. */
    MYSQL,
    /** H2. */
    H2;

    /**
     * The database of a JDBC {@code DatabaseMetaData.getDatabaseProductName()}, if known:
     * {@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code H2}. Empty for null.
     */
    public static Optional<SqlDatabase> forProductName(String productName) {
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
     * The database a JDBC URL names by its subprotocol, if known: {@code jdbc:postgresql:},
     * {@code jdbc:mysql:}, {@code jdbc:mariadb:}, {@code jdbc:h2:} (in any case). Needs no
     * connection. Wrapping drivers ({@code jdbc:p6spy:...}) are not looked through. Empty for null.
     */
    public static Optional<SqlDatabase> forJdbcUrl(String url) {
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
