package dev.mortise.lock.spring.backends;

import org.h2.jdbcx.JdbcDataSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;

/**
 * The starter on the JDBC backend over the application's H2 {@link DataSource} (an
 * in-memory database both "instances" share), by {@code mortise.lock.backend=jdbc}.
 */
class H2BackendIntegrationTests extends BackendIntegrationTestSupport {

    @Override
    String backend() {
        return "jdbc";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.jdbc.create-table=true"};
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withBean(DataSource.class, () -> {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:mortise-starter;DB_CLOSE_DELAY=-1");
            return dataSource;
        });
    }
}
