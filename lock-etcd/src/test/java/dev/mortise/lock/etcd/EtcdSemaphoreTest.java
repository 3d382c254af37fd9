package dev.mortise.lock.etcd;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import dev.mortise.lock.tck.server.EtcdServer;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.etcd.RequestCountTest.perOperation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Native semaphores on etcd: what they cost, counted by the server
 * ({@code grpc_server_msg_received_total} by method: acquiring n permits is one {@code Txn},
 * releasing them one {@code DeleteRange}; a release wakes, by request, only the waiter it admits),
 * how they are stored (one permit key per hold, its value {@code count/limit/owner}, nothing left
 * after the last release), and a count mismatch refused with nothing left. Counts are exact, not
 * timed; leases are long, so no renewal runs while a count is taken.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdSemaphoreTest {

    private static EtcdServer server;
    private static Client admin;
    private static EtcdTestSupport etcd;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String name = "sem:" + UUID.randomUUID();

    @BeforeAll
    static void startServer() {
        server = new EtcdServer();
        server.start();
        admin = Client.builder().endpoints(server.endpoint()).build();
        etcd = new EtcdTestSupport(admin);
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private LockClient client() {
        LockClient client = LockClient.builder(EtcdTestSupport.backend(List.of(server.endpoint())).build())
                .defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(client);
        return client;
    }

    private int keys() {
        try {
            return etcd.keysOf(name + "#permits").size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void acquiringNPermitsIsOneTransactionAndReleasingThemOneDelete() throws Exception {
        LockClient locks = client();
        LockSemaphore semaphore = locks.semaphore(name, 5);
        assertThat(semaphore.isNative()).isTrue();
        semaphore.acquire(Duration.ofSeconds(5)).close(); // session lease granted here
        int cycles = 50;
        Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
        for (int i = 0; i < cycles; i++) {
            try (PermitLease three = semaphore.tryAcquire(3, Duration.ZERO).orElseThrow()) {
                assertThat(three.fencingTokens()).hasSize(1);
            }
        }
        Map<String, Double> perCycle = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), cycles);
        System.out.println("requests per uncontended cycle of 3 permits: " + perCycle);
        assertThat(perCycle).containsEntry("Txn", 1.0).containsEntry("DeleteRange", 1.0);
        assertThat(perCycle.keySet()).isSubsetOf("Txn", "DeleteRange", "LeaseKeepAlive");
        assertThat(perCycle.getOrDefault("LeaseKeepAlive", 0.0) * cycles).isLessThanOrEqualTo(1);
        assertThat(etcd.keysOf(semaphore.permitsKey())).as("nothing left after the last release").isEmpty();
    }

    @Test
    void eachHoldIsOnePermitKeyCarryingItsCountAndTheStoredCount() throws Exception {
        LockSemaphore semaphore = client().semaphore(name, 4);
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5));
        PermitLease one = semaphore.acquire(1, Duration.ofSeconds(5));
        List<KeyValue> keys = etcd.keysOf(semaphore.permitsKey());
        assertThat(keys).hasSize(2);
        assertThat(keys.get(0).getCreateRevision()).isEqualTo(two.fencingTokens().get(0));
        assertThat(keys.get(1).getCreateRevision()).isEqualTo(one.fencingTokens().get(0));
        assertThat(keys.get(0).getValue().toString(StandardCharsets.UTF_8)).startsWith("2/4/");
        assertThat(keys.get(1).getValue().toString(StandardCharsets.UTF_8)).startsWith("1/4/");
        assertThat(keys.get(0).getKey().toString(StandardCharsets.UTF_8)).contains("/$");

        Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
        semaphore.setPermits(6);
        Map<String, Double> perSet = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), 1);
        System.out.println("requests per setPermits with 2 holds: " + perSet);
        assertThat(perSet).containsEntry("Range", 2.0).containsEntry("Txn", 1.0);
        assertThat(perSet.keySet()).isSubsetOf("Range", "Txn", "LeaseKeepAlive");
        List<KeyValue> rewritten = etcd.keysOf(semaphore.permitsKey());
        assertThat(rewritten.get(0).getValue().toString(StandardCharsets.UTF_8)).startsWith("2/6/");
        assertThat(rewritten.get(1).getValue().toString(StandardCharsets.UTF_8)).startsWith("1/6/");
        assertThat(rewritten.get(0).getCreateRevision()).as("the token does not move").isEqualTo(
                keys.get(0).getCreateRevision());
        assertThat(rewritten.get(0).getLease()).as("the key stays on its lease").isEqualTo(keys.get(0).getLease());

        two.close();
        one.close();
        assertThat(etcd.keysOf(semaphore.permitsKey())).as("the stored count went with the last hold").isEmpty();
    }

    @Test
    void aMismatchIsOneTransactionAndOneDeleteAndLeavesNothing() throws Exception {
        LockClient locks = client();
        PermitLease held = locks.semaphore(name, 3).acquire(Duration.ofSeconds(5));
        LockSemaphore two = client().semaphore(name, 2);
        // A first refusal opens the client's session lease.
        assertThatThrownBy(() -> two.tryAcquire(1, Duration.ZERO)).isInstanceOf(PermitCountMismatchException.class);
        Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
        assertThatThrownBy(() -> two.tryAcquire(1, Duration.ZERO)).isInstanceOf(PermitCountMismatchException.class);
        Map<String, Double> perRefusal = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), 1);
        System.out.println("requests per refused mismatch: " + perRefusal);
        assertThat(perRefusal).containsEntry("Txn", 1.0).containsEntry("DeleteRange", 1.0);
        assertThat(etcd.keysOf(two.permitsKey())).hasSize(1);
        held.close();
    }

    /**
     * One permit, a holder and two waiters: the release wakes, by request, only the first waiter
     * (one look, which grants); the second sees the deletion on its watch and asks nothing, since
     * the first is still ahead of it.
     */
    @Test
    void aReleaseCostsOnlyTheWaiterItAdmitsOneLook() throws Exception {
        LockSemaphore holderSide = client().semaphore(name, 1);
        LockSemaphore first = client().semaphore(name, 1);
        LockSemaphore second = client().semaphore(name, 1);
        PermitLease held = holderSide.acquire(Duration.ofSeconds(5));
        first.tryAcquire(); // open both clients' session leases
        second.tryAcquire();
        double watchers = EtcdMetrics.read(server.endpoint(), "etcd_debugging_mvcc_watcher_total");
        CompletableFuture<PermitLease> firstWaits = CompletableFuture.supplyAsync(
                () -> first.acquire(Duration.ofSeconds(60)));
        EtcdLockBackendTest.await(Duration.ofSeconds(10), () -> keys() == 2,
                "the first waiter queued");
        CompletableFuture<PermitLease> secondWaits = CompletableFuture.supplyAsync(
                () -> second.acquire(Duration.ofSeconds(60)));
        EtcdLockBackendTest.await(Duration.ofSeconds(10), () -> keys() == 3,
                "the second waiter queued");
        // both watches in place on the server (created asynchronously after the queue keys): a watch created
        // after the release would show as a Watch request, and see the release as its first event
        // (a soft wait: the server's count also moves with other clients' watches ending, so it only bounds the wait)
        long watchesDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (EtcdMetrics.read(server.endpoint(), "etcd_debugging_mvcc_watcher_total") < watchers + 2
                && System.nanoTime() - watchesDeadline < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(100);
        Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
        held.close();
        PermitLease firstHolds = firstWaits.get(30, TimeUnit.SECONDS);
        Thread.sleep(500); // room for the second waiter to (wrongly) ask
        Map<String, Double> perRelease = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), 1);
        System.out.println("requests per release with two waiters for one permit: " + perRelease);
        assertThat(perRelease).containsEntry("DeleteRange", 1.0).containsEntry("Txn", 1.0);
        assertThat(perRelease.keySet()).isSubsetOf("DeleteRange", "Txn", "LeaseKeepAlive");
        assertThat(secondWaits).isNotDone();
        firstHolds.close();
        secondWaits.get(30, TimeUnit.SECONDS).close();
        assertThat(etcd.keysOf(name + "#permits")).isEmpty();
    }

    private static LockRequest permits(String key, String owner, int count, int limit) {
        return new LockRequest(key, owner, Duration.ofSeconds(30), true, LockMode.SHARED, new Permits(count, limit));
    }

    /** Permit holds and plain holds of one key exclude each other, in both directions; inspection shows the permits. */
    @Test
    void permitHoldsAndPlainHoldsOfOneKeyExcludeEachOther() throws Exception {
        String key = name + "#permits";
        try (EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build()) {
            Grant a = backend.tryAcquire(permits(key, "a-" + UUID.randomUUID(), 1, 3)).grant().orElseThrow();
            Grant b = backend.tryAcquire(permits(key, "b-" + UUID.randomUUID(), 2, 3)).grant().orElseThrow();
            assertThat(backend.tryAcquire(permits(key, "c-" + UUID.randomUUID(), 1, 3)).isGranted())
                    .as("3 of 3 held").isFalse();
            assertThat(backend.tryAcquire(new LockRequest(key, "r-" + UUID.randomUUID(), Duration.ofSeconds(30), true,
                    LockMode.SHARED)).isGranted()).as("a plain reader waits for permit keys").isFalse();
            assertThat(backend.tryAcquire(new LockRequest(key, "w-" + UUID.randomUUID(), Duration.ofSeconds(30), true))
                    .isGranted()).as("a writer waits for permit keys").isFalse();
            KeyState state = backend.inspect(key);
            assertThat(state.mode()).isEqualTo(LockMode.SHARED);
            assertThat(state.holders()).extracting(KeyState.Holder::owner).containsExactly(a.owner(), b.owner());
            assertThat(state.holders().get(0).fencingToken()).hasValue(a.fencingToken());
            assertThat(backend.release(a)).isTrue();
            assertThat(backend.release(b)).isTrue();

            Grant reader = backend.tryAcquire(new LockRequest(key, "r-" + UUID.randomUUID(), Duration.ofSeconds(30),
                    true, LockMode.SHARED)).grant().orElseThrow();
            assertThat(backend.tryAcquire(permits(key, "d-" + UUID.randomUUID(), 1, 3)).isGranted())
                    .as("a permit request waits for a plain reader").isFalse();
            assertThat(backend.release(reader)).isTrue();
            assertThat(etcd.keysOf(key)).isEmpty();
        }
    }

    /** A lease move (renewal with another lease, linger) puts a permit key again with the count setPermits wrote. */
    @Test
    void aLeaseMoveKeepsTheRewrittenCount() throws Exception {
        String key = name + "#permits";
        try (EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build()) {
            Grant held = backend.tryAcquire(permits(key, "a-" + UUID.randomUUID(), 2, 3)).grant().orElseThrow();
            backend.setPermits(key, 5);
            assertThat(backend.renew(held, Duration.ofSeconds(40))).as("moved to the 40 s session").isPresent();
            KeyValue moved = etcd.keysOf(key).get(0);
            assertThat(moved.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("2/5/" + held.owner());
            assertThat(moved.getCreateRevision()).isEqualTo(held.fencingToken());
            backend.setPermits(key, 4);
            assertThat(backend.linger(held, Duration.ofSeconds(20))).isTrue();
            assertThat(etcd.keysOf(key).get(0).getValue().toString(StandardCharsets.UTF_8))
                    .isEqualTo("2/4/" + held.owner());
            assertThat(backend.tryAcquire(permits(key, "b-" + UUID.randomUUID(), 2, 4)).grant())
                    .as("2 + 2 fit the stored 4").isPresent().get().satisfies(backend::release);
            assertThat(backend.release(held)).isTrue();
            assertThat(etcd.keysOf(key)).isEmpty();
        }
    }
}
