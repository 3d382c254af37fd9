package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling move from one lock store to another on real servers (issue 21, migration mode):
 * an instance still on the old version locks the old store, one on the migrating version locks
 * both (mortise.lock.migration.from/to), one on the next version the new store; every pair
 * excludes each other, and the migrating instance reports the new store's tokens.
 */
class MigrationIntegrationTests {

    private static RedisServer redis;
    private static EtcdServer etcd;
    private static PostgresServer postgres;

    @BeforeAll
    static void start() {
        redis = new RedisServer();
        redis.start();
        etcd = new EtcdServer();
        etcd.start();
        postgres = new PostgresServer();
        postgres.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
        etcd.close();
        postgres.close();
    }

    private static ApplicationContextRunner app(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class))
                .withPropertyValues(properties);
    }

    private static DataSource postgres() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(postgres.jdbcUrl());
        dataSource.setUser(postgres.user());
        return dataSource;
    }

    @Test
    void redisToEtcd() {
        String redisAddress = "mortise.lock.redis.address=" + redis.address();
        String etcdEndpoints = "mortise.lock.etcd.endpoints=" + etcd.endpoint();
        app("mortise.lock.backend=redis", redisAddress).run(old ->
                app("mortise.lock.migration.from=redis", "mortise.lock.migration.to=etcd", redisAddress, etcdEndpoints)
                        .run(migrating -> app("mortise.lock.backend=etcd", etcdEndpoints).run(next -> {
                            assertThat(migrating).hasNotFailed();
                            assertThat(migrating.getBean(LockClients.class).names()).contains("migration");
                            checkRollingDeploy(old.getBean(LockClient.class), migrating.getBean(LockClient.class),
                                    next.getBean(LockClient.class));
                        })));
    }

    @Test
    void jdbcToRedis() {
        String redisAddress = "mortise.lock.redis.address=" + redis.address();
        app("mortise.lock.backend=jdbc", "mortise.lock.jdbc.create-table=true")
                .withBean(DataSource.class, MigrationIntegrationTests::postgres).run(old ->
                app("mortise.lock.migration.from=jdbc", "mortise.lock.migration.to=redis",
                        "mortise.lock.jdbc.create-table=true", redisAddress)
                        .withBean(DataSource.class, MigrationIntegrationTests::postgres)
                        .run(migrating -> app("mortise.lock.backend=redis", redisAddress).run(next -> {
                            assertThat(migrating).hasNotFailed();
                            checkRollingDeploy(old.getBean(LockClient.class), migrating.getBean(LockClient.class),
                                    next.getBean(LockClient.class));
                        })));
    }

    @Test
    void aMigrationNamingOneSideOnlyFailsStartUpNamingBothProperties() {
        app("mortise.lock.migration.from=redis", "mortise.lock.redis.address=" + redis.address()).run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("mortise.lock.migration.from").hasMessageContaining("mortise.lock.migration.to"));
    }

    private static void checkRollingDeploy(LockClient old, LockClient migrating, LockClient next) {
        String key = "order:" + UUID.randomUUID();
        try (LockLease held = migrating.acquire(key, Duration.ofSeconds(10))) {
            assertThat(old.tryAcquire(key)).as("old version excluded by the old store").isEmpty();
            assertThat(next.tryAcquire(key)).as("next version excluded by the new store").isEmpty();
            assertThat(held.isValid()).isTrue();
        }
        long oldToken;
        try (LockLease held = old.acquire(key, Duration.ofSeconds(10))) {
            oldToken = held.fencingToken();
            assertThat(migrating.tryAcquire(key)).as("migrating instance excluded by the old store").isEmpty();
        }
        long nextToken;
        try (LockLease held = next.acquire(key, Duration.ofSeconds(10))) {
            nextToken = held.fencingToken();
            assertThat(migrating.tryAcquire(key)).as("migrating instance excluded by the new store").isEmpty();
        }
        try (LockLease again = migrating.acquire(key, Duration.ofSeconds(10))) {
            assertThat(again.fencingToken()).as("the new store's token (old store's was %d)", oldToken)
                    .isGreaterThan(nextToken);
        }
        assertThat(migrating.heldLocks()).isEmpty();
    }
}
