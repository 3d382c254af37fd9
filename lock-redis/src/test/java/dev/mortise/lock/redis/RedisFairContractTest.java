package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.FreePorts;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract in fair mode (server-side queue, hand-off inside the release script)
 * on one real redis-server, plus arrival order and clean-up of dead waiters.
 */
class RedisFairContractTest extends RedisLockBackendContractTest {

    @Override
    protected LockBackend backendAt(String address) {
        return RedisLockBackend.builder().address(address).fair(true).build();
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().address("redis://127.0.0.1:" + FreePorts.next()).fair(true)
                .operationTimeout(operationTimeout).build();
    }

    /** A release hands the lock to the queue's head and tells it so: the message is the grant. */
    @Override
    protected boolean waiterGrantedByReply() {
        return false;
    }

    /** The lock key, the readers, the queue and the waiter entries: all must be gone when nobody holds or waits. */
    @Override
    protected int residueOnServer(String key) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", key);
        return Integer.parseInt(server.command("EXISTS", keys.lock(), keys.readers(), keys.queue(), keys.waiters())
                .substring(1));
    }

    // ---- beyond the shared contract ---------------------------------------------------------

    @Test
    void waitersAreGrantedInArrivalOrderByHandOff() throws Exception {
        String key = key();
        RedisKeys keys = RedisKeys.of("mortise", key);
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        List<Long> order = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 3; i++) {
            LockClient client = newClient();
            long id = i;
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try (LockLease lease = client.acquire(key, Duration.ofSeconds(60))) {
                    order.add(id);
                    sleep(100);
                    return lease.fencingToken();
                }
            }));
            long queued = i + 1;
            await(Duration.ofSeconds(10), () -> zcard(keys) == queued, "waiter " + i + " to queue");
        }
        held.close();
        // Handed over inside the release script: the lock is never free in between.
        assertThat(server.command("EXISTS", keys.lock())).as("lock already handed to the first waiter").isEqualTo(":1");
        assertThat(a.guarantees().fair()).isTrue();
        List<Long> tokens = new ArrayList<>();
        for (CompletableFuture<Long> waiter : waiters) {
            tokens.add(waiter.get(30, TimeUnit.SECONDS));
        }
        assertThat(order).containsExactly(0L, 1L, 2L);
        // Hand-over order is token order (server-clock tokens jump by the microseconds between grants).
        assertThat(tokens.get(0)).isGreaterThan(held.fencingToken());
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(residueOnServer(key)).isZero();
    }

    @Test
    void aDeadWaiterAtTheHeadIsSkipped() throws Exception {
        String key = key();
        RedisKeys keys = RedisKeys.of("mortise", key);
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        // A waiter that crashed long ago: first in line, deadline passed, never coming back.
        assertThat(server.command("ZADD", keys.queue(), "0", "ghost")).isEqualTo(":1");
        assertThat(server.command("HSET", keys.waiters(), "ghost", "1:60000")).isEqualTo(":1");
        CompletableFuture<LockLease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, Duration.ofSeconds(60)));
        await(Duration.ofSeconds(10), () -> zcard(keys) == 2, "the live waiter to queue behind the ghost");
        held.close();
        LockLease granted = waiter.get(30, TimeUnit.SECONDS);
        // Server-clock tokens jump by the microseconds between grants, so +1 no longer shows that the
        // ghost got nothing; the ghost's entries being gone (residue below) and this grant do.
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        assertThat(residueOnServer(key)).isZero();
    }

    private static long zcard(RedisKeys keys) {
        try {
            return Long.parseLong(server.command("ZCARD", keys.queue()).substring(1));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
