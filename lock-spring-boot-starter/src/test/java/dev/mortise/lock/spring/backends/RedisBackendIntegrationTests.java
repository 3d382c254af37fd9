package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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

    @Override
    String backend() {
        return "redis";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.redis.address=" + server.address()};
    }
}
