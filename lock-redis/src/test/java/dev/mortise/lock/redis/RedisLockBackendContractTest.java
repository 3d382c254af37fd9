package dev.mortise.lock.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractTest;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** The whole contract against one real redis-server; each backend has its own Redisson client, as a process would. */
class RedisLockBackendContractTest extends LockBackendContractTest {

    protected static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().address(server.address()).build();
    }

    @Override
    protected void breakHold(LockLease lease) throws Exception {
        String reply = server.command("DEL", RedisKeys.of("mortise", lease.key()).lock());
        if (!reply.equals(":1")) {
            throw new AssertionError("the lock key was not on the server: " + reply);
        }
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().address("redis://127.0.0.1:" + FreePorts.next())
                .operationTimeout(operationTimeout).build();
    }

    @Override
    protected int residueOnServer(String key) throws Exception {
        return Integer.parseInt(server.command("EXISTS", RedisKeys.of("mortise", key).lock()).substring(1));
    }
}
