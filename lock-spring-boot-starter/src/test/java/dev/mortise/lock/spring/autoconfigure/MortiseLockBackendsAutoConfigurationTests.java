package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The conditions of {@link MortiseLockBackendsAutoConfiguration}. Redis, etcd and
 * ZooKeeper clients connect lazily, so backends can be built here against ports nobody
 * listens on; the integration tests use real servers.
 */
@ExtendWith(OutputCaptureExtension.class)
class MortiseLockBackendsAutoConfigurationTests {

    private static final String NOBODY_REDIS = "mortise.lock.redis.address=redis://127.0.0.1:1";
    private static final String NOBODY_ETCD = "mortise.lock.etcd.endpoints=http://127.0.0.1:1";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                    MortiseLockAutoConfiguration.class));

    @Test
    void noBackendUnlessAskedFor() {
        runner.withPropertyValues("mortise.lock.backend=local")
                .run(context -> assertThat(context).doesNotHaveBean(RedisLockBackend.class)
                        .doesNotHaveBean(EtcdLockBackend.class).doesNotHaveBean(ZookeeperLockBackend.class)
                        .doesNotHaveBean(JdbcLockBackend.class));
    }

    @Test
    void redisByItsProperties() {
        runner.withPropertyValues(NOBODY_REDIS).run(context -> {
            assertThat(context).hasSingleBean(RedisLockBackend.class);
            assertThat(context.getBean(LockClients.class).defaultName()).isEqualTo("redis");
        });
    }

    /** Issue 19: without Redisson on the class path the Redis backend starts on Lettuce (auto). */
    @Test
    void redisWithoutRedissonStartsOnLettuce() {
        runner.withPropertyValues(NOBODY_REDIS)
                .withClassLoader(new FilteredClassLoader("org.redisson"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RedisLockBackend.class));
    }

    @Test
    void redisWithNeitherClientLibraryFailsNamingBoth() {
        runner.withPropertyValues(NOBODY_REDIS)
                .withClassLoader(new FilteredClassLoader("org.redisson", "io.lettuce"))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("needs a Redis client library on the class path")
                        .hasStackTraceContaining("org.redisson:redisson")
                        .hasStackTraceContaining("io.lettuce:lettuce-core")
                        .hasStackTraceContaining("mortise.lock.redis.enabled=false"));
    }

    @Test
    void clientLettuceWithoutLettuceFailsNamingTheDependencyAndTheProperty() {
        runner.withPropertyValues(NOBODY_REDIS, "mortise.lock.redis.client=lettuce")
                .withClassLoader(new FilteredClassLoader("io.lettuce"))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.redis.client=lettuce needs io.lettuce:lettuce-core"));
    }

    @Test
    void clientRedissonWithoutRedissonFailsNamingTheDependencyAndTheProperty() {
        runner.withPropertyValues(NOBODY_REDIS, "mortise.lock.redis.client=redisson")
                .withClassLoader(new FilteredClassLoader("org.redisson"))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.redis.client=redisson needs org.redisson:redisson"));
    }

    /**
     * An unknown client fails binding, and Spring Boot's start-up failure report (its bind
     * failure analyzer, which only a SpringApplication runs) lists the valid values.
     */
    @Test
    void unknownClientFailsListingTheValidOnes(CapturedOutput output) {
        SpringApplication application = new SpringApplication(UnknownClientApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> application.run("--" + NOBODY_REDIS, "--mortise.lock.redis.client=jedis"))
                .hasStackTraceContaining("Failed to bind properties under 'mortise.lock.redis.client'");
        assertThat(output.getAll()).contains("mortise.lock.redis.client").contains("jedis")
                .containsPattern("The following values are valid:\\s+AUTO\\s+LETTUCE\\s+REDISSON");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({MortiseLockBackendsAutoConfiguration.class, MortiseLockAutoConfiguration.class})
    static class UnknownClientApplication {
    }

    /** A backend declared by name takes client too: lettuce on a class path without Redisson. */
    @Test
    void namedRedisBackendTakesTheClientProperty() {
        runner.withPropertyValues(NOBODY_REDIS, "mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.address=redis://127.0.0.1:1",
                        "mortise.lock.backends.orders.client=lettuce", "mortise.lock.backend=redis")
                .withClassLoader(new FilteredClassLoader("org.redisson"))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void redisCanBeSwitchedOff() {
        runner.withPropertyValues(NOBODY_REDIS, "mortise.lock.backend=redis", "mortise.lock.redis.enabled=false")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backend=redis but no backend of that name"));
    }

    @Test
    void conflictingRedisSettingsFailStartupNamingTheProperties() {
        runner.withPropertyValues(NOBODY_REDIS, "mortise.lock.redis.cluster-nodes=redis://127.0.0.1:2")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Cannot configure the 'redis' lock backend")
                        .hasStackTraceContaining("mortise.lock.redis."));
    }

    @Test
    void etcdByItsPropertiesAndOnlyWithJetcd() {
        runner.withPropertyValues(NOBODY_ETCD)
                .run(context -> assertThat(context).hasSingleBean(EtcdLockBackend.class));
        runner.withPropertyValues(NOBODY_ETCD, "mortise.lock.backend=local")
                .withClassLoader(new FilteredClassLoader(Client.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("etcdLockBackend"));
    }

    @Test
    void zookeeperByTheBackendPropertyAndOnlyWithCurator() {
        runner.withPropertyValues("mortise.lock.backend=zookeeper",
                        "mortise.lock.zookeeper.connect-string=127.0.0.1:1")
                .run(context -> assertThat(context).hasSingleBean(ZookeeperLockBackend.class));
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.zookeeper.connect-string=127.0.0.1:1")
                .withClassLoader(new FilteredClassLoader(CuratorFramework.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("zookeeperLockBackend"));
    }

    @Test
    void jdbcReusesTheApplicationsDataSource() {
        runner.withBean(DataSource.class, MortiseLockBackendsAutoConfigurationTests::h2)
                .withPropertyValues("mortise.lock.jdbc.create-table=true")
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcLockBackend.class);
                    assertThat(context.getBean(LockClients.class).getDefault().backendName()).isEqualTo("jdbc");
                });
    }

    @Test
    void jdbcOnlyWithItsModule() {
        runner.withBean(DataSource.class, MortiseLockBackendsAutoConfigurationTests::h2)
                .withPropertyValues("mortise.lock.backend=local")
                .withClassLoader(new FilteredClassLoader(JdbcLockBackend.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("jdbcLockBackend"));
    }

    @Test
    void jdbcWithoutADataSourceFailsStartupSayingWhatToSet() {
        runner.withPropertyValues("mortise.lock.backend=jdbc")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("needs a DataSource")
                        .hasStackTraceContaining("spring.datasource"));
    }

    @Test
    void theOnlyBackendModuleOnTheClasspathIsTheDefault() {
        runner.withClassLoader(new FilteredClassLoader(EtcdLockBackend.class, ZookeeperLockBackend.class,
                        JdbcLockBackend.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(RedisLockBackend.class);
                    assertThat(context.getBean(LockClients.class).names()).containsExactly("redis");
                });
    }

    @Test
    void theOnlyModuleStaysOutWhenAnotherBackendIsChosen() {
        runner.withPropertyValues("mortise.lock.backend=local")
                .withClassLoader(new FilteredClassLoader(EtcdLockBackend.class, ZookeeperLockBackend.class,
                        JdbcLockBackend.class))
                .run(context -> {
                    assertThat(context).doesNotHaveBean("redisLockBackend");
                    assertThat(context.getBean(LockClients.class).names()).containsExactly("local");
                });
    }

    @Test
    void severalBackendsAtOnceWithADefault() {
        runner.withPropertyValues(NOBODY_REDIS, NOBODY_ETCD, "mortise.lock.local.enabled=true",
                        "mortise.lock.backend=etcd")
                .run(context -> {
                    LockClients clients = context.getBean(LockClients.class);
                    assertThat(clients.names()).containsExactlyInAnyOrder("redis", "etcd", "local");
                    assertThat(clients.defaultName()).isEqualTo("etcd");
                });
        runner.withPropertyValues(NOBODY_REDIS, NOBODY_ETCD)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Several lock backends are configured"));
    }

    @Test
    void backendsDeclaredByNameAndType() {
        runner.withPropertyValues("mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.address=redis://127.0.0.1:1",
                        "mortise.lock.backends.orders.key-prefix=orders",
                        "mortise.lock.backends.audit.type=local", "mortise.lock.backends.audit.default-lease=5s",
                        "mortise.lock.backend=orders")
                .run(context -> {
                    LockClients clients = context.getBean(LockClients.class);
                    assertThat(clients.names()).containsExactlyInAnyOrder("orders", "audit");
                    assertThat(clients.defaultName()).isEqualTo("orders");
                    assertThat(clients.get("orders").backendName()).isEqualTo("redis");
                    assertThat(clients.get("audit").backendName()).isEqualTo("local");
                });
    }

    @Test
    void declaredBackendNeedsItsModule() {
        runner.withPropertyValues("mortise.lock.backends.orders.type=redis", "mortise.lock.backend=orders")
                .withClassLoader(new FilteredClassLoader(RedisLockBackend.class))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backends.orders.type=redis but no such backend module")
                        .hasStackTraceContaining("lock-redis"));
    }

    @Test
    void declaredBackendMayNotShadowAConfiguredOne() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.backends.local.type=redis",
                        "mortise.lock.backends.local.address=redis://127.0.0.1:1")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("already configured"));
    }

    @Test
    void badSettingsOfADeclaredBackendNameItsPrefix() {
        runner.withPropertyValues("mortise.lock.backends.orders.type=redis", "mortise.lock.backend=orders",
                        "mortise.lock.backends.orders.address=not-a-url")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backends.orders.*"));
    }

    private static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:conditions-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }
}
