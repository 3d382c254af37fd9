package dev.mortise.lock.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractSuite;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** The whole contract against one real redis-server; each backend has its own Redisson client, as a process would. */
class RedisLockBackendContractTest extends LockBackendContractSuite {

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
    protected final LockBackend newBackend() {
        return backendAt(server.address());
    }

    /** This test's kind of backend (driver, mode) against {@code address}. */
    protected LockBackend backendAt(String address) {
        return RedisLockBackend.builder().address(address).build();
    }

    @Override
    protected int wirePort() {
        return server.port();
    }

    @Override
    protected LockBackend newBackendAt(int port) {
        return backendAt("redis://127.0.0.1:" + port);
    }

    /** Deletes the lock key, or the readers of a shared hold (every share of the key: there is one here). */
    @Override
    protected void breakHold(LockLease lease) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", lease.key());
        String reply = server.command("DEL", lease.mode() == LockMode.SHARED ? keys.readers() : keys.lock());
        if (!reply.equals(":1")) {
            throw new AssertionError("the hold was not on the server: " + reply);
        }
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().address("redis://127.0.0.1:" + FreePorts.next())
                .operationTimeout(operationTimeout).build();
    }

    /** The lock key, the readers and the writer-waiting markers: all must be gone when nobody holds or waits. */
    @Override
    protected int residueOnServer(String key) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", key);
        return Integer.parseInt(server.command("EXISTS", keys.lock(), keys.readers(), keys.writers()).substring(1));
    }

    /**
     * The wait-record strings of the holder ids ({@code EXISTS}): Redis expires a key by itself (on access
     * and in its expiry cycle), and an expired one no command sees, so this counts what outlives that.
     */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        return holderIds.isEmpty() ? 0 : Integer.parseInt(server.command(existsWaitRecords(holderIds)).substring(1));
    }

    /** {@code EXISTS} of the wait records of {@code holderIds} (not empty) under the default prefix. */
    static String[] existsWaitRecords(java.util.Collection<String> holderIds) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of("EXISTS"),
                holderIds.stream().map(id -> RedisKeys.waitRecord("mortise", id))).toArray(String[]::new);
    }

    /** Whether a woken waiter learns its grant from its attempt's reply (not in fair mode: from the hand-off message). */
    protected boolean waiterGrantedByReply() {
        return true;
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy to {@link #wirePort()}, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(RedisLockBackendContractTest.this);
        }

        @Override
        protected boolean waiterGrantedByReply() {
            return RedisLockBackendContractTest.this.waiterGrantedByReply();
        }
    }
}
