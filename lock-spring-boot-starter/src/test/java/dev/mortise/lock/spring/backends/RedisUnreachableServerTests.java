package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterEach;

/** Redis down at start-up, then started on its port. */
class RedisUnreachableServerTests extends UnreachableServerTestSupport {

    private final RedisServer server = new RedisServer();

    @AfterEach
    void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "redis";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.redis.address=" + server.address(), "mortise.lock.redis.operation-timeout=1s"};
    }

    @Override
    void startServer() {
        server.start();
    }
}
