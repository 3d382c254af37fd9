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
import java.util.ArrayList;
import java.util.List;

/** The whole contract against Redlock over five independent redis-servers. */
class RedlockContractTest extends LockBackendContractSuite {

    private static final List<RedisServer> servers = new ArrayList<>();

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder();
    }

    @BeforeAll
    static void startServers() {
        for (int i = 0; i < 5; i++) {
            servers.add(new RedisServer());
            // One at a time: a launched server binds its port only later, and FreePorts could
            // hand the same free port to the next one meanwhile.
            servers.get(i).start();
        }
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @Override
    protected LockBackend newBackend() {
        return builder().nodes(servers.stream().map(RedisServer::address).toArray(String[]::new))
                .nodeTimeout(Duration.ofSeconds(1)).build();
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy in front of each server, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(RedlockContractTest.this);
        }

        @Override
        protected List<Integer> wirePorts() {
            return servers.stream().map(RedisServer::port).toList();
        }

        @Override
        protected LockBackend backendThrough(java.util.Map<Integer, Integer> proxyPortByServerPort) {
            return builder().nodes(proxyPortByServerPort.values().stream().map(port -> "redis://127.0.0.1:" + port)
                    .toArray(String[]::new)).nodeTimeout(Duration.ofSeconds(1)).build();
        }
    }

    /** Deletes the lock key (the readers, for a shared hold) on every node, as expiry everywhere would. */
    @Override
    protected void breakHold(LockLease lease) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", lease.key());
        String hold = lease.mode() == LockMode.SHARED ? keys.readers() : keys.lock();
        int deleted = 0;
        for (RedisServer server : servers) {
            deleted += Integer.parseInt(server.command("DEL", hold).substring(1));
        }
        if (deleted < 3) {
            throw new AssertionError("the lock was on " + deleted + " nodes, fewer than a majority");
        }
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return builder().nodes("redis://127.0.0.1:" + FreePorts.next(), "redis://127.0.0.1:" + FreePorts.next(),
                "redis://127.0.0.1:" + FreePorts.next()).nodeTimeout(operationTimeout).build();
    }

    /** The wait-record strings of the holder ids, summed over the nodes ({@code EXISTS} on each). */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        if (holderIds.isEmpty()) {
            return 0;
        }
        String[] command = RedisLockBackendContractTest.existsWaitRecords(holderIds);
        int count = 0;
        for (RedisServer server : servers) {
            count += Integer.parseInt(server.command(command).substring(1));
        }
        return count;
    }

    /** The lock key, the readers and the writer-waiting markers of the key, summed over the nodes. */
    @Override
    protected int residueOnServer(String key) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", key);
        int count = 0;
        for (RedisServer server : servers) {
            count += Integer.parseInt(server.command("EXISTS", keys.lock(), keys.readers(), keys.writers()).substring(1));
        }
        return count;
    }
}
