package dev.mortise.lock.etcd;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requests each operation sends, counted by the server ({@code grpc_server_msg_received_total}
 * by method): an uncontended cycle is one transaction and one delete; a renewal of many holds on
 * the session lease is one keep-alive and one lease listing; a waiter right behind the holder
 * takes the lock on the holder's delete with no further request. Counts are exact, not timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RequestCountTest {

    private static EtcdServer server;

    @BeforeAll
    static void start() {
        server = new EtcdServer();
        server.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anUncontendedCycleIsOneTransactionAndOneDelete() {
        try (LockClient locks = LockClient.builder(EtcdTestSupport.backend(List.of(server.endpoint())).build())
                .defaultLease(Duration.ofSeconds(30)).build()) {
            String key = "count:" + UUID.randomUUID();
            locks.acquire(key, Duration.ofSeconds(5)).close(); // session lease granted here
            int cycles = 100;
            Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
            for (int i = 0; i < cycles; i++) {
                try (LockLease lease = locks.tryAcquire(key, Duration.ofSeconds(10)).orElseThrow()) {
                    assertThat(lease.fencingToken()).isPositive();
                }
            }
            Map<String, Double> perCycle = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), cycles);
            System.out.println("requests per uncontended cycle: " + perCycle);
            // The 30 s session's keep-alive may tick once during the loop.
            assertThat(perCycle).containsEntry("Txn", 1.0).containsEntry("DeleteRange", 1.0);
            assertThat(perCycle.keySet()).isSubsetOf("Txn", "DeleteRange", "LeaseKeepAlive");
            assertThat(perCycle.getOrDefault("LeaseKeepAlive", 0.0) * cycles).isLessThanOrEqualTo(1);
        }
    }

    @Test
    void renewingManyHoldsIsOneKeepAliveAndOneListingOfTheSessionLease() {
        try (EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build()) {
            List<Grant> grants = new ArrayList<>();
            String run = UUID.randomUUID().toString();
            for (int i = 0; i < 1000; i++) {
                grants.add(backend.tryAcquire(new LockRequest("renew:" + run + ":" + i, "owner-" + run + "-" + i,
                        Duration.ofSeconds(30), true)).grant().orElseThrow());
            }
            Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
            assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty();
            Map<String, Double> perRenewal = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()), 1);
            System.out.println("requests per renewal of 1000 holds: " + perRenewal);
            assertThat(perRenewal).containsEntry("LeaseTimeToLive", 1.0);
            assertThat(perRenewal.keySet()).isSubsetOf("LeaseTimeToLive", "LeaseKeepAlive");
            assertThat(perRenewal.getOrDefault("LeaseKeepAlive", 0.0)).isBetween(1.0, 2.0); // + the session's tick

            // A hold whose key is deleted behind our back is still noticed by the listing.
            Grant victim = grants.get(500);
            assertThat(backend.release(victim)).isTrue();
            assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).containsExactly(victim);
            grants.remove(victim);
            grants.forEach(backend::release);
        }
    }

    @Test
    void aHandoffCostsTheWaiterNoRequestBeyondQueueingAndItsWatch() throws Exception {
        try (LockClient first = client(); LockClient second = client()) {
            String key = "handoff:" + UUID.randomUUID();
            first.acquire("warm:" + key, Duration.ofSeconds(5)).close();
            second.acquire("warm:" + key, Duration.ofSeconds(5)).close();
            int handoffs = 20;
            Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
            for (int i = 0; i < handoffs; i++) {
                LockLease held = first.acquire(key, Duration.ofSeconds(10));
                CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(
                        () -> second.acquire(key, Duration.ofSeconds(30)));
                EtcdLockBackendTest.await(Duration.ofSeconds(10), () -> keys(key) == 2, "the waiter queued");
                held.close();
                waiting.get(30, TimeUnit.SECONDS).close();
            }
            Map<String, Double> perHandoff = perOperation(before, EtcdMetrics.messagesReceived(server.endpoint()),
                    handoffs);
            perHandoff.remove("Range"); // this test's own polling of the queue
            System.out.println("requests per handoff (holder cycle + waiter): " + perHandoff);
            // holder: queue txn + delete; waiter: queue txn + delete, and one watch stream; the waiter takes the
            // lock on its predecessor's deletion without a look. The watch confirms its creation; when etcd's
            // revision had moved past the waiter's read by then, the waiter looks once more (rare here: the
            // waiter is queued before the holder lets go).
            assertThat(perHandoff.get("Txn")).isBetween(2.0, 2.5);
            assertThat(perHandoff).containsEntry("DeleteRange", 2.0).containsEntry("Watch", 1.0);
            assertThat(perHandoff.getOrDefault("LeaseKeepAlive", 0.0) * handoffs).isLessThanOrEqualTo(2);
        }
    }

    private static LockClient client() {
        return LockClient.builder(EtcdTestSupport.backend(List.of(server.endpoint())).build())
                .defaultLease(Duration.ofSeconds(30)).build();
    }

    private static int keys(String key) {
        try (io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder().endpoints(server.endpoint()).build()) {
            return new EtcdTestSupport(admin).keysOf(key).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Double> perOperation(Map<String, Long> before, Map<String, Long> after, int operations) {
        Map<String, Double> out = new TreeMap<>();
        after.forEach((method, value) -> {
            long delta = value - before.getOrDefault(method, 0L);
            if (delta != 0) {
                out.put(method, delta / (double) operations);
            }
        });
        return out;
    }
}
