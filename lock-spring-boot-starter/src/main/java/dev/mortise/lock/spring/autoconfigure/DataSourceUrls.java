package dev.mortise.lock.spring.autoconfigure;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * The JDBC URL a {@link DataSource} was configured with, read without a connection (HikariCP's
 * {@code getJdbcUrl()}, or the {@code getUrl()}/{@code getURL()} of Tomcat, DBCP2, Spring's and
 * the drivers' own data sources, through Spring's delegating data sources): how the JDBC lock
 * backend and the fence guard know their SQL dialect while the database is down. Needs neither
 * lock-jdbc nor lock-fencing.
 */
final class DataSourceUrls {

    private static final String[] URL_GETTERS = {"getJdbcUrl", "getUrl", "getURL"};

    private DataSourceUrls() {
    }

    /** The JDBC URL {@code dataSource} (or the one it delegates to) was configured with, if it tells. */
    static Optional<String> url(DataSource dataSource) {
        DataSource current = dataSource;
        for (int depth = 0; current != null && depth < 5; depth++) {
            for (String getter : URL_GETTERS) {
                Object url = call(current, getter);
                if (url instanceof String text && !text.isBlank()) {
                    return Optional.of(text);
                }
            }
            // Spring's DelegatingDataSource family (TransactionAwareDataSourceProxy, LazyConnection...).
            current = call(current, "getTargetDataSource") instanceof DataSource target && target != current ? target
                    : null;
        }
        return Optional.empty();
    }

    private static Object call(Object target, String name) {
        try {
            Method method = target.getClass().getMethod(name);
            if (!Modifier.isPublic(method.getDeclaringClass().getModifiers())) {
                method.setAccessible(true);
            }
            return method.invoke(target);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // not a getter this data source has: it does not tell its URL
        }
    }
}
