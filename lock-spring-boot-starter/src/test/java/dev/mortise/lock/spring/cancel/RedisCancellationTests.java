package dev.mortise.lock.spring.cancel;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Cancellation at every point on a real redis-server, its acquire request or reply held by a
 * proxy. The marker is the lock's Redis key: the acquire script's call is the first request
 * that names it.
 */
class RedisCancellationTests extends RealServerCancellationTestSupport {

    private static RedisServer server;
    private static StallingProxy proxy;
    private static RedisLockBackend other;

    @BeforeAll
    static void start() throws Exception {
        server = new RedisServer();
        server.start();
        proxy = new StallingProxy(server.port());
        other = RedisLockBackend.builder().address(server.address()).build();
    }

    @AfterAll
    static void stop() {
        if (other != null) {
            other.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    String backend() {
        return "redis";
    }

    @Override
    String[] connection(StallingProxy proxy) {
        return new String[] {"mortise.lock.redis.address=" + proxy.redisAddress()};
    }

    @Override
    StallingProxy proxy() {
        return proxy;
    }

    @Override
    String acquireMarker(String key) {
        return RedisKeys.of("mortise", key).lock();
    }

    @Override
    LockBackend otherClient() {
        return other;
    }

    @Override
    int onServer(String key) throws Exception {
        return Integer.parseInt(server.command("EXISTS", RedisKeys.of("mortise", key).lock()).substring(1));
    }
}
