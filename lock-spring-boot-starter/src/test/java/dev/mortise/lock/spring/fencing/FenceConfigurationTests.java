package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.fencing.FenceDialect;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockFencingAutoConfiguration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import javax.sql.DataSource;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fence support's wiring: beans and their conditions, start-up checks of fence attributes, no transaction. */
class FenceConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockFencingAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local", "mortise.lock.fence.create-table=true");

    private static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:fence-config-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Test
    void guardAndFencesFromTheDataSource() {
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).run(context -> {
            assertThat(context).hasSingleBean(JdbcFenceGuard.class).hasSingleBean(Fences.class);
            assertThat(context.getBean(JdbcFenceGuard.class).dialect()).isEqualTo(FenceDialect.H2);
        });
    }

    @Test
    void anApplicationGuardWins() {
        JdbcFenceGuard own = JdbcFenceGuard.builder(h2()).dialect(FenceDialect.H2).tableName("my_fences").build();
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(JdbcFenceGuard.class, () -> own)
                .run(context -> assertThat(context.getBean(Fences.class).guard()).isSameAs(own));
    }

    @Test
    void anApplicationsOwnFencesBeanChecksFencedMethods() {
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(Fenced.class)
                .withUserConfiguration(Transactions.class, OwnFences.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(Fences.class);
                    context.getBean(Fenced.class).write("2");
                    Long token = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                            "SELECT token FROM own_fences WHERE resource = 'item:2'", Long.class);
                    assertThat(token).as("the fence the application's Fences raised").isPositive();
                });
    }

    @Test
    void nothingWithoutLockFencingOrADataSource() {
        runner.withClassLoader(new FilteredClassLoader(JdbcFenceGuard.class))
                .withBean(DataSource.class, FenceConfigurationTests::h2)
                .run(context -> assertThat(context).doesNotHaveBean(Fences.class)
                        .doesNotHaveBean("jdbcFenceGuard"));
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcFenceGuard.class));
    }

    @Test
    void aMissingFenceTableFailsStartUpWithTheFix() {
        runner.withPropertyValues("mortise.lock.fence.create-table=false")
                .withBean(DataSource.class, FenceConfigurationTests::h2)
                .withBean(Fenced.class).withUserConfiguration(Transactions.class)
                .run(context -> {
                    // The table is checked at the first check: a FenceCheckException naming the DDL.
                    assertThatThrownBy(() -> context.getBean(Fenced.class).write("1"))
                            .hasMessageContaining("mortise_fences").hasMessageContaining("create");
                });
    }

    @Test
    void aFencedMethodWithoutATransactionFailsAtTheCallNamingTheMethodAndTheFix() {
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(Unguarded.class)
                .withUserConfiguration(Transactions.class)
                .run(context -> {
                    Unguarded bean = context.getBean(Unguarded.class);
                    assertThatThrownBy(() -> bean.write("7"))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("Unguarded.write(String)")
                            .hasMessageContaining("no transaction is active")
                            .hasMessageContaining("@Transactional");
                    assertThat(bean.runs).as("the body did not run").isZero();
                    assertThat(context.getBean(LocalLockBackend.class).server().isHeld("item:7")).isFalse();
                });
    }

    @Test
    void fenceExpressionMistakesFailStartUp() {
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(BadSyntax.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("fence \"'item:' +\"").hasStackTraceContaining("not valid SpEL"));
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(UnknownParameter.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("fence \"'item:' + #itemId\"").hasStackTraceContaining("#itemId")
                        .hasStackTraceContaining("not a parameter"));
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(Unquoted.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("fence \"billing-run\""));
        // #lockKey is bound for the fence only: the key cannot refer to itself.
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(LockKeyInKey.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("key \"'item:' + #lockKey\"").hasStackTraceContaining("not a parameter"));
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(LockKeyInFence.class)
                .withUserConfiguration(Transactions.class)
                .run(context -> assertThat(context).hasNotFailed());
        runner.withBean(DataSource.class, FenceConfigurationTests::h2).withBean(Async.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("Async.write(String)").hasStackTraceContaining("CompletableFuture"));
    }

    @Test
    void aFenceWithoutAGuardFailsStartUp() {
        runner.withBean(Fenced.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("Fenced.write(String)").hasStackTraceContaining("lock-fencing"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {
        @org.springframework.context.annotation.Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFences {
        @org.springframework.context.annotation.Bean
        Fences ownFences(DataSource dataSource) {
            return new Fences(JdbcFenceGuard.builder(dataSource).dialect(FenceDialect.H2).tableName("own_fences")
                    .createTableIfMissing(true).build(), dataSource);
        }
    }

    public static class Fenced {
        @org.springframework.transaction.annotation.Transactional
        @DistributedLock(key = "'item:' + #id", fence = "'item:' + #id")
        public void write(String id) {
        }
    }

    public static class Unguarded {
        int runs;

        @DistributedLock(key = "'item:' + #id", fence = "'item:' + #id")
        public void write(String id) {
            runs++;
        }
    }

    public static class BadSyntax {
        @DistributedLock(key = "'item:' + #id", fence = "'item:' +")
        public void write(String id) {
        }
    }

    public static class UnknownParameter {
        @DistributedLock(key = "'item:' + #id", fence = "'item:' + #itemId")
        public void write(String id) {
        }
    }

    public static class LockKeyInKey {
        @DistributedLock(key = "'item:' + #lockKey", fence = "#lockKey")
        public void write(String id) {
        }
    }

    public static class LockKeyInFence {
        @org.springframework.transaction.annotation.Transactional
        @DistributedLock(key = "#ids", fence = "'balance:' + #lockKey")
        public void write(java.util.List<String> ids) {
        }
    }

    public static class Unquoted {
        @DistributedLock(key = "'item:' + #id", fence = "billing-run")
        public void write(String id) {
        }
    }

    public static class Async {
        @DistributedLock(key = "'item:' + #id", fence = "'item:' + #id")
        public CompletableFuture<Void> write(String id) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
