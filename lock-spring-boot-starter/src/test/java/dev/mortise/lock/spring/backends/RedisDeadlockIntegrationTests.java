package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Deadlock detection through the starter on a real redis-server: two application contexts (two
 * instances) on one server, chosen by {@code mortise.lock.backend=redis} and an address.
 */
class RedisDeadlockIntegrationTests extends DeadlockIntegrationTestSupport {

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
    ApplicationContextRunner onTheServer(ApplicationContextRunner runner) {
        return runner.withPropertyValues("mortise.lock.redis.address=" + server.address());
    }
}
