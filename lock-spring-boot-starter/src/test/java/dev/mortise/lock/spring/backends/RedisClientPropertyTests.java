package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.tck.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * mortise.lock.redis.client on a real redis-server: which client the backend's scripts run
 * on, told apart by CLIENT LIST. The connection that ran Mortise's acquire and release last
 * ({@code cmd=evalsha}) carries the name of the client it belongs to (the RedissonClient bean's
 * "redisson-bean", the LettuceConnectionFactory's "app", none for a client of Mortise's own)
 * and its protocol (Lettuce negotiates RESP3, Redisson speaks RESP2).
 */
class RedisClientPropertyTests {

    private static RedisServer server;
    private static RedisClient probeClient;
    private static StatefulRedisConnection<String, String> probe;
    private RedissonClient redisson;

    @BeforeAll
    static void start() {
        server = new RedisServer();
        server.start();
        probeClient = RedisClient.create(server.address());
        probe = probeClient.connect();
        probe.sync().clientSetname("probe");
    }

    @AfterAll
    static void stop() {
        probe.close();
        probeClient.shutdown();
        server.close();
    }

    @BeforeEach
    void redissonBean() {
        Config config = new Config();
        config.setLazyInitialization(true);
        config.useSingleServer().setAddress(server.address()).setClientName("redisson-bean");
        redisson = Redisson.create(config);
    }

    @AfterEach
    void closeRedisson() {
        redisson.shutdown();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.wait-for=10s");
    }

    /** With spring-boot-starter-data-redis: a LettuceConnectionFactory whose client is named "app". */
    private ApplicationContextRunner withFactory(ApplicationContextRunner runner) {
        return runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
                        "spring.data.redis.client-name=app");
    }

    private ApplicationContextRunner withRedissonBean(ApplicationContextRunner runner) {
        return runner.withBean(RedissonClient.class, () -> redisson, definition -> definition.setDestroyMethodName(""));
    }

    /**
     * "name resp" of each connection whose last command was a script, after one lock cycle in
     * {@code context}; only connections newer than the probe's (ids grow), so that those of an
     * earlier test, if the server still lists them, do not count. Clients connect lazily.
     */
    private static Set<String> scriptConnections(ApplicationContext context) {
        long newest = clients().mapToLong(f -> Long.parseLong(f.get("id"))).max().orElse(0);
        try (LockLease lease = context.getBean(LockClient.class).acquire("client:" + UUID.randomUUID(),
                Duration.ofSeconds(10))) {
            assertThat(lease.backend()).isEqualTo("redis");
        }
        return clients().filter(f -> Long.parseLong(f.get("id")) > newest && f.get("cmd").startsWith("eval"))
                .map(f -> f.get("name") + " resp" + f.get("resp"))
                .collect(Collectors.toSet());
    }

    private static java.util.stream.Stream<Map<String, String>> clients() {
        return Arrays.stream(probe.sync().clientList().split("\n")).map(RedisClientPropertyTests::fields);
    }

    private static Map<String, String> fields(String line) {
        return Arrays.stream(line.trim().split(" ")).map(kv -> kv.split("=", 2))
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv.length > 1 ? kv[1] : ""));
    }

    @Test
    void autoWithOnlyAFactoryUsesTheFactorysClient() {
        withFactory(runner()).run(context -> assertThat(scriptConnections(context)).containsExactly("app resp3"));
    }

    @Test
    void autoWithBothBeansPrefersTheRedissonBean() {
        withRedissonBean(withFactory(runner())).run(context ->
                assertThat(scriptConnections(context)).containsExactly("redisson-bean resp2"));
    }

    @Test
    void redissonWithBothBeansUsesTheRedissonBean() {
        withRedissonBean(withFactory(runner())).withPropertyValues("mortise.lock.redis.client=redisson")
                .run(context -> assertThat(scriptConnections(context)).containsExactly("redisson-bean resp2"));
    }

    @Test
    void lettuceWithBothBeansUsesTheFactorysClient() {
        withRedissonBean(withFactory(runner())).withPropertyValues("mortise.lock.redis.client=lettuce")
                .run(context -> assertThat(scriptConnections(context)).containsExactly("app resp3"));
    }

    @Test
    void lettuceWithoutAFactoryBuildsItsOwnClientFromTheAddress() {
        runner().withPropertyValues("mortise.lock.redis.client=lettuce", "mortise.lock.redis.address=" + server.address())
                .run(context -> assertThat(scriptConnections(context)).containsExactly(" resp3"));
    }

    /** Connection settings mean a client of Mortise's own, on the chosen driver, beans or not. */
    @Test
    void anAddressMeansAClientOfItsOwnOnTheChosenDriver() {
        withRedissonBean(withFactory(runner())).withPropertyValues("mortise.lock.redis.address=" + server.address())
                .run(context -> assertThat(scriptConnections(context)).containsExactly(" resp2"));
        withRedissonBean(withFactory(runner())).withPropertyValues("mortise.lock.redis.address=" + server.address(),
                        "mortise.lock.redis.client=lettuce")
                .run(context -> assertThat(scriptConnections(context)).containsExactly(" resp3"));
    }

    /** Without org.redisson on the class path (as the context sees it), auto builds a Lettuce client. */
    @Test
    void autoWithoutRedissonBuildsALettuceClient() {
        runner().withPropertyValues("mortise.lock.redis.address=" + server.address())
                .withClassLoader(new FilteredClassLoader("org.redisson"))
                .run(context -> assertThat(scriptConnections(context)).containsExactly(" resp3"));
    }

    /** mortise.lock.redis.connect-timeout reaches the builder on either driver; a bad value fails start-up naming it. */
    @Test
    void connectTimeoutIsPassedToTheBackend() {
        for (String client : new String[] {"redisson", "lettuce"}) {
            runner().withPropertyValues("mortise.lock.redis.address=" + server.address(),
                            "mortise.lock.redis.client=" + client, "mortise.lock.redis.connect-timeout=5s")
                    .run(context -> assertThat(scriptConnections(context)).hasSize(1));
            runner().withPropertyValues("mortise.lock.redis.address=" + server.address(),
                            "mortise.lock.redis.client=" + client, "mortise.lock.redis.connect-timeout=0s")
                    .run(context -> assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("connectTimeout must be positive"));
        }
    }
}
