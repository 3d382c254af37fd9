package dev.mortise.lock.spring.backends;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on the JDBC backend over the application's H2 {@link DataSource} (an
 * in-memory database both "instances" share), by {@code mortise.lock.backend=jdbc}.
 */
class H2BackendIntegrationTests extends BackendIntegrationTestSupport {

    /** {@code mortise.lock.jdbc.fencing-tokens=counter} reaches the backend: 1, 2 on a fresh key; the default is the server clock. */
    @Test
    void fencingTokensPropertyChoosesTheScheme() {
        runner().withPropertyValues("mortise.lock.jdbc.fencing-tokens=counter").run(context ->
                assertThat(twoSuccessiveTokens(context)).containsExactly(1L, 2L));
        runner().run(context -> {
            long[] tokens = twoSuccessiveTokens(context);
            assertThat(tokens[0]).as("server clock in µs, far above a counter").isGreaterThan(1_000_000_000_000_000L);
            assertThat(tokens[1]).isGreaterThan(tokens[0]);
        });
    }

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
