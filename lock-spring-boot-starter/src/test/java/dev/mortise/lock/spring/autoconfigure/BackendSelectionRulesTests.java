package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.actuate.LockBackendHealthIndicator;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backend is built only when chosen or explicitly configured, and every mistake in
 * {@code mortise.lock.*} fails start-up naming the property to change.
 */
class BackendSelectionRulesTests {

    private static final String NOBODY_REDIS = "mortise.lock.redis.address=redis://127.0.0.1:1";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                    MortiseLockAutoConfiguration.class, MortiseLockHealthAutoConfiguration.class));

    @Test
    void aDataSourceDoesNotSwitchOnJdbcWhenAnotherBackendIsChosen() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backend=redis", NOBODY_REDIS)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(JdbcLockBackend.class);
                    assertThat(context.getBean(LockClients.class).names()).containsExactly("redis");
                });
    }

    @Test
    void aDataSourceAloneChoosesNothingWhenSeveralModulesArePresent() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("No lock backend is configured")
                        .hasStackTraceContaining("mortise.lock.backend"));
    }

    @Test
    void explicitClientSettingsByNameConfigureThatBackend() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backend=redis", NOBODY_REDIS,
                        "mortise.lock.backends.jdbc.default-lease=5s", "mortise.lock.jdbc.create-table=true")
                .run(context -> assertThat(context.getBean(LockClients.class).names())
                        .containsExactlyInAnyOrder("redis", "jdbc"));
    }

    @Test
    void misspelledTopLevelPropertyFailsStartupNamingTheRightOne() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backnd=redis", "mortise.lock.jdbc.create-table=true")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backnd")
                        .hasStackTraceContaining("mortise.lock.backend"));
    }

    @Test
    void misspelledBackendPropertyFailsStartupNamingTheRightOne() {
        runner.withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.adress=redis://127.0.0.1:1")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.redis.adress")
                        .hasStackTraceContaining("mortise.lock.redis.address"));
        runner.withPropertyValues("mortise.lock.backend=orders", "mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.adress=redis://127.0.0.1:1")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backends.orders.address"));
    }

    @Test
    void validPropertiesOfEveryKindPass() {
        runner.withPropertyValues("mortise.lock.backend=orders", "mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.address=redis://127.0.0.1:1",
                        "mortise.lock.backends.orders.default-lease=10s", "mortise.lock.redis.enabled=false",
                        // left behind by a profile that changed the type: valid for some type, so no typo
                        "mortise.lock.backends.orders.create-table=true",
                        "mortise.lock.redis.cluster-nodes[0]=redis://127.0.0.1:1", "mortise.lock.local.enabled=true",
                        "mortise.lock.actuator.force-release.enabled=false", "mortise.lock.wait-for=1s")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void unknownBackendNameListsTheValidOnes() {
        runner.withPropertyValues("mortise.lock.backend=rediss")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backend=rediss")
                        .hasStackTraceContaining("redis, etcd, zookeeper, jdbc, local"));
    }

    @Test
    void missingLockTableFailsStartupUnlessCreateTableIsSet() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backend=jdbc")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("lock table mortise_locks")
                        .hasStackTraceContaining("mortise.lock.jdbc.create-table=true"));
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backend=jdbc", "mortise.lock.jdbc.create-table=true")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void healthIsDownWithTheFixWhenTheLockTableIsMissing() {
        runner.withBean(DataSource.class, BackendSelectionRulesTests::h2)
                .withPropertyValues("mortise.lock.backend=jdbc", "mortise.lock.jdbc.create-table=true")
                .run(context -> {
                    try (Connection connection = context.getBean(DataSource.class).getConnection();
                         Statement statement = connection.createStatement()) {
                        statement.execute("DROP TABLE mortise_locks");
                    }
                    CompositeHealthContributor health = context.getBean("locksHealthContributor",
                            CompositeHealthContributor.class);
                    Health jdbc = ((HealthIndicator) health.getContributor("jdbc")).health();
                    assertThat(jdbc.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(jdbc.getDetails().toString()).contains("mortise.lock.jdbc.create-table");
                    assertThat(new LockBackendHealthIndicator(context.getBean(LockClients.class).get("jdbc"))
                            .health().getStatus()).isNotNull();
                });
    }

    private static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:rules-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }
}
