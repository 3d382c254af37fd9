package dev.mortise.lock.spring.backends;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter on a real redis-server, by {@code mortise.lock.backend=redis} and an address. */
class RedisBackendIntegrationTests extends BackendIntegrationTestSupport {

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

    @Test
    void backendsDeclaredByNameOnOneServerAreChosenPerAnnotation() {
        runner().withPropertyValues("mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.address=" + server.address(),
                        "mortise.lock.backends.orders.key-prefix=orders")
                .withBean(Orders.class)
                .run(context -> {
                    LockClients clients = context.getBean(LockClients.class);
                    assertThat(clients.names()).containsExactlyInAnyOrder("redis", "orders");
                    assertThat(context.getBean(Orders.class).heldOnOrders("42", clients)).isEqualTo(List.of("order:42"));
                    assertThat(clients.get("orders").heldLocks()).isEmpty();
                });
    }

    /** {@code mortise.lock.redis.fencing-tokens=counter} reaches the backend: 1, 2 on a fresh key; the default is the server clock; a named backend's fencing-tokens too. */
    @Test
    void fencingTokensPropertyChoosesTheScheme() {
        runner().withPropertyValues("mortise.lock.redis.fencing-tokens=counter").run(context ->
                assertThat(twoSuccessiveTokens(context)).containsExactly(1L, 2L));
        runner().run(context -> {
            long[] tokens = twoSuccessiveTokens(context);
            assertThat(tokens[0]).as("server clock in µs, far above a counter").isGreaterThan(1_000_000_000_000_000L);
            assertThat(tokens[1]).isGreaterThan(tokens[0]);
        });
        runner().withPropertyValues("mortise.lock.backends.orders.type=redis",
                        "mortise.lock.backends.orders.address=" + server.address(),
                        "mortise.lock.backends.orders.fencing-tokens=counter")
                .run(context -> {
                    LockClient orders = context.getBean(LockClients.class).get("orders");
                    String key = "tokens:" + java.util.UUID.randomUUID();
                    try (LockLease lease = orders.acquire(key, java.time.Duration.ofSeconds(10))) {
                        assertThat(lease.fencingToken()).as("a named backend takes the property too").isEqualTo(1L);
                    }
                });
    }

    public static class Orders {
        @DistributedLock(key = "'order:' + #id", backend = "orders")
        public List<String> heldOnOrders(String id, LockClients clients) {
            assertThat(clients.get("redis").heldLocks()).isEmpty();
            return clients.get("orders").heldLocks().stream().map(HeldLock::key).toList();
        }
    }

    @Override
    String backend() {
        return "redis";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.redis.address=" + server.address()};
    }
}
