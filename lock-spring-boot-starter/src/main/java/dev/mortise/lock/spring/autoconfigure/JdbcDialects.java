package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.jdbc.JdbcDialect;

import javax.sql.DataSource;
import java.util.Locale;
import java.util.Optional;

/**
 * The SQL dialect of the JDBC backend chosen without a connection, so the application
 * starts while the database is down: {@code mortise.lock.jdbc.dialect} if set, else the
 * JDBC URL the {@link DataSource} was configured with (HikariCP's {@code getJdbcUrl()}, or
 * the {@code getUrl()}/{@code getURL()} of Tomcat, DBCP2, Spring's and the drivers' own
 * data sources). Empty when neither is known: lock-jdbc then asks the database at start-up.
 */
final class JdbcDialects {

    private JdbcDialects() {
    }

    /**
     * @param configured the {@code dialect} property, or null
     * @param prefix     where it lives ({@code mortise.lock.jdbc}), for the message
     * @throws IllegalStateException if {@code configured} is no dialect, naming the valid ones
     */
    static Optional<JdbcDialect> choose(String configured, DataSource dataSource, String prefix) {
        if (configured != null && !configured.isBlank()) {
            return Optional.of(parse(configured.strip(), prefix));
        }
        return url(dataSource).flatMap(JdbcDialect::forJdbcUrl);
    }

    private static JdbcDialect parse(String name, String prefix) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "postgresql", "postgres" -> JdbcDialect.POSTGRESQL;
            case "mysql", "mariadb" -> JdbcDialect.MYSQL;
            case "h2" -> JdbcDialect.H2;
            default -> throw new IllegalStateException(prefix + ".dialect=" + name + " is not a dialect of the 'jdbc' "
                    + "lock backend; valid: postgresql, mysql (also for MariaDB), h2. Fix " + prefix + ".dialect.");
        };
    }

    /** The JDBC URL {@code dataSource} (or the one it delegates to) was configured with, if it tells. */
    static Optional<String> url(DataSource dataSource) {
        return DataSourceUrls.url(dataSource);
    }
}
