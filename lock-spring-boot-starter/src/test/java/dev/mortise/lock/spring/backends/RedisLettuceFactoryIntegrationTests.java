package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.tck.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with spring-boot-starter-data-redis and no Mortise connection settings: the
 * Redis backend talks Lettuce over the native client of the application's
 * {@link LettuceConnectionFactory} (mortise.lock.redis.client=auto, no RedissonClient bean),
 * passes the same two-instance suite as every backend, and leaves the client to Spring.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisLettuceFactoryIntegrationTests extends BackendIntegrationTestSupport {

    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "redis";
    }

    /** Only the application's Spring Data Redis settings: Mortise has none of its own. */
    @Override
    String[] connection() {
        return new String[] {"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
                "spring.data.redis.client-name=app"};
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));
    }

    /**
     * Names of the server's client connections opened after the one with id {@code since} (Redis
     * numbers connections in order), but the probe's own: connections of earlier tests' clients,
     * which may outlive their test for a while, are not this test's business.
     */
    private static List<String> clientNames(StatefulRedisConnection<String, String> probe, long since) {
        return Arrays.stream(probe.sync().clientList().split("\n"))
                .filter(line -> !line.contains(" name=probe ") && clientId(line) > since)
                .map(line -> line.replaceAll(".* name=(\\S*) .*", "$1"))
                .toList();
    }

    private static long clientId(String clientListLine) {
        return Long.parseLong(clientListLine.replaceAll("^id=(\\d+) .*", "$1").trim());
    }

    /**
     * Every connection on the server while Mortise holds and waits for a lock carries the
     * factory's client name ("app", from its RedisURI): Mortise's commands and pub/sub run on
     * the factory's native client, no Redisson connection and no client of Mortise's own.
     */
    @Test
    void locksRunOnTheFactorysNativeClient() {
        RedisClient probeClient = RedisClient.create(server.address());
        try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
            probe.sync().clientSetname("probe");
            // CI saw an earlier test's unnamed connection (RESP2, no command: an idle pooled one) still listed
            // 10 s on, past any settling wait: only connections opened from here on are judged
            long since = probe.sync().clientId();
            runner().run(first -> runner().run(second -> {
                assertThat(first).hasNotFailed().hasSingleBean(LettuceConnectionFactory.class);
                String key = "factory:" + UUID.randomUUID();
                try (LockLease lease = first.getBean(LockClient.class).acquire(key, Duration.ofSeconds(10))) {
                    // the other instance waits: its backend subscribes to the key's release channel
                    var waiting = java.util.concurrent.CompletableFuture.supplyAsync(() ->
                            second.getBean(LockClient.class).tryAcquire(key, Duration.ofSeconds(20)));
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (probe.sync().pubsubChannels().isEmpty() && probe.sync().pubsubShardChannels().isEmpty()
                            && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    List<String> channels = new java.util.ArrayList<>(probe.sync().pubsubChannels());
                    channels.addAll(probe.sync().pubsubShardChannels());
                    assertThat(channels).as("the waiter's release channel").isNotEmpty();
                    // first: its command connection; second: its command and pub/sub connections. A
                    // connection Mortise opened itself would be listed here without the factory's name.
                    List<String> names = clientNames(probe, since);
                    assertThat(names).as("connections other than the probe, in CLIENT LIST:%n%s",
                                    probe.sync().clientList())
                            .hasSizeGreaterThanOrEqualTo(3).allMatch("app"::equals);
                    lease.close();
                    java.util.Optional<LockLease> next = waiting.get();
                    assertThat(next).as("the waiter gets the lock on release").isPresent();
                    next.get().close();
                }
            }));
        } finally {
            probeClient.shutdown();
        }
    }

    /**
     * The factory's database index is in its native client's RedisURI, so Mortise locks in that
     * database (here 3), as the application's own commands do; database 0 stays empty.
     */
    @Test
    void locksInTheFactorysDatabase() {
        RedisClient probeClient = RedisClient.create(server.address());
        try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
            String key = "db:" + UUID.randomUUID();
            runner().withPropertyValues("spring.data.redis.database=3").run(context -> {
                try (LockLease lease = context.getBean(LockClient.class).acquire(key, Duration.ofSeconds(10))) {
                    probe.sync().select(3);
                    assertThat(probe.sync().keys("*" + key + "*")).as("the lock key in database 3").isNotEmpty();
                    probe.sync().select(0);
                    assertThat(probe.sync().keys("*" + key + "*")).as("nothing in database 0").isEmpty();
                }
            });
        } finally {
            probeClient.shutdown();
        }
    }

    /**
     * Closing Mortise's backend closes only its own connections: the factory (and its native
     * client) still serves the application until Spring stops it, and shutting the context
     * down logs no error or warning.
     */
    @Test
    void closingLeavesTheFactoryToSpring(CapturedOutput output) {
        runner().run(context -> {
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            LockClient client = context.getBean(LockClient.class);
            try (LockLease lease = client.acquire("close:" + UUID.randomUUID(), Duration.ofSeconds(10))) {
                assertThat(lease.backend()).isEqualTo("redis");
            }
            context.getBean(RedisLockBackend.class).close();
            assertThat(factory.isRunning()).isTrue();
            try (RedisConnection connection = factory.getConnection()) {
                assertThat(connection.ping()).isEqualTo("PONG");
            }
            try (var direct = ((RedisClient) factory.getRequiredNativeClient()).connect()) {
                assertThat(direct.sync().ping()).as("the native client is still open").isEqualTo("PONG");
            }
        });
        assertThat(output.getAll()).doesNotContainPattern("(?m)^.*\\b(ERROR|WARN)\\b.*(lettuce|mortise|redis).*$");
    }
}
