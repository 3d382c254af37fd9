package dev.mortise.lock.redis;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.CrossProcessDeadlockContract;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Map;
import java.util.function.Supplier;

/** Deadlocks between JVMs on one real redis-server, each owner a Redisson client of its own. */
class RedisCrossProcessDeadlockTest extends CrossProcessDeadlockContract {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** What each owner process builds its backend with: Redis at {@code mortise.party.redis}. */
    public static final class Parties implements Supplier<LockBackend> {
        @Override
        public LockBackend get() {
            return RedisLockBackend.builder().address(System.getProperty("mortise.party.redis")).build();
        }
    }

    @Override
    protected Class<? extends Supplier<LockBackend>> factory() {
        return Parties.class;
    }

    @Override
    protected Map<String, String> factoryProperties() {
        return Map.of("mortise.party.redis", server.address());
    }
}
