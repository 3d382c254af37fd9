package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** etcd-specific behaviour against a real single-member etcd: leases, the queue, loss, a frozen server. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLockBackendTest extends EtcdServerPerClass {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration SLACK = Duration.ofSeconds(5);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClients() {
        server.resume();
        clients.forEach(LockClient::close);
    }

    private LockClient client(Duration operationTimeout) {
        return client(operationTimeout, LEASE);
    }

    private LockClient client(Duration operationTimeout, Duration lease) {
        LockClient client = LockClient.builder(EtcdTestSupport.backend(List.of(server.endpoint()))
                .operationTimeout(operationTimeout).build()).defaultLease(lease).build();
        clients.add(client);
        return client;
    }

    private LockClient client() {
        return client(Duration.ofSeconds(5));
    }

    private static String key() {
        return "etcd-test:" + UUID.randomUUID();
    }

    @Test
    void renewedHoldsShareOneSessionLeaseAndExplicitLeasesAreOwnAndRoundedUp() throws Exception {
        LockClient a = client();
        try (LockLease one = a.acquire(key(), SLACK);
             LockLease two = a.acquire(key(), SLACK);
             LockLease explicit = a.acquire(LockSpec.of(key()).lease(Duration.ofMillis(2500)));
             LockLease otherExplicit = a.acquire(LockSpec.of(key()).lease(Duration.ofMillis(2500)))) {
            long session = etcd.holdKey(one).getLease();
            assertThat(etcd.holdKey(two).getLease()).isEqualTo(session);
            assertThat(grantedTtl(session)).isEqualTo(3);
            long own = etcd.holdKey(explicit).getLease();
            assertThat(own).isNotEqualTo(session).isNotEqualTo(etcd.holdKey(otherExplicit).getLease());
            assertThat(grantedTtl(own)).as("2.5 s rounds up to 3 s, never down").isEqualTo(3);
        }
    }

    private static long grantedTtl(long leaseId) throws Exception {
        return admin.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getGrantedTTL();
    }

    @Test
    void busyTryAcquireLeavesNoWaiterKey() throws Exception {
        LockClient a = client();
        LockClient b = client();
        String key = key();
        try (LockLease held = a.acquire(key, SLACK)) {
            assertThat(b.tryAcquire(key)).isEmpty();
            assertThat(b.tryAcquire(LockSpec.of(key).lease(Duration.ofSeconds(10)))).isEmpty();
            assertThat(etcd.keysOf(key)).extracting(KeyValue::getCreateRevision).containsExactly(held.fencingToken());
        }
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    @Test
    void revokedSessionLeaseLosesEveryHoldOnItAtOnce() throws Exception {
        LockClient a = client();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        String k1 = key();
        String k2 = key();
        LockLease one = a.acquire(k1, SLACK).onLost(lost::add);
        LockLease two = a.acquire(k2, SLACK).onLost(lost::add);
        etcd.revokeLeaseOf(one);
        await(LEASE.plus(SLACK), () -> lost.size() == 2, "both holds on the revoked lease reported lost");
        assertThat(lost).extracting(LockLostEvent::reason).allMatch(r -> r == LostReason.SESSION_LOST
                || r == LostReason.RENEWAL_REJECTED);
        assertThat(one.isValid()).isFalse();
        assertThat(two.isValid()).isFalse();
        LockClient b = client();
        assertThat(b.tryAcquire(k1)).hasValueSatisfying(LockLease::close);
        assertThat(b.tryAcquire(k2)).hasValueSatisfying(LockLease::close);
        assertThat(a.tryAcquire(k1)).as("a new session replaces the lost one").hasValueSatisfying(LockLease::close);
        assertThatThrownBy(one::close).isInstanceOf(LockException.class);
        assertThatThrownBy(two::close).isInstanceOf(LockException.class);
    }

    @Test
    void aWaiterWhoseLeaseDiesWhileWaitingIsNeverGrantedOnIt() throws Exception {
        String key = key();
        LockClient holder = client();
        LockClient doomed = client();
        LockClient next = client();
        LockLease held = holder.acquire(key, SLACK);
        CompletableFuture<LockLease> doomedWait = CompletableFuture.supplyAsync(() -> doomed.acquire(key, Duration.ofSeconds(60)));
        await(SLACK, () -> keyCount(key) == 2, "the first waiter queued");
        CompletableFuture<LockLease> nextWait = CompletableFuture.supplyAsync(() -> next.acquire(key, Duration.ofSeconds(60)));
        await(SLACK, () -> keyCount(key) == 3, "the second waiter queued");
        KeyValue doomedKey = etcd.keysOf(key).get(1);

        // The first waiter's lease dies while it waits; then the holder lets go.
        etcd.revoke(doomedKey.getLease());
        held.close();

        LockLease nextLease = nextWait.get(30, TimeUnit.SECONDS);
        assertThat(nextLease.fencingToken()).isGreaterThan(doomedKey.getCreateRevision());
        Thread.sleep(500);
        assertThat(doomedWait).as("never granted on the dead lease while the next waiter holds").isNotDone();
        nextLease.close();
        LockLease doomedLease = doomedWait.get(30, TimeUnit.SECONDS);
        assertThat(doomedLease.fencingToken()).as("granted under a new key after queueing again")
                .isGreaterThan(nextLease.fencingToken());
        assertThat(etcd.holdKey(doomedLease).getLease()).isNotEqualTo(doomedKey.getLease());
        CompletableFuture.runAsync(doomedLease::close).get(30, TimeUnit.SECONDS);
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    @Test
    void aWaiterWhoseKeyIsDeletedBeforeItsPredecessorIsNeverGrantedOnIt() throws Exception {
        // The waiter right behind the holder takes the lock on the holder's deletion without reading again;
        // that is only sound because a deletion of its own key, earlier in the same watch stream, stops it.
        String key = key();
        LockLease held = client().acquire(key, SLACK);
        LockClient waiter = client();
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(() -> waiter.acquire(key, Duration.ofSeconds(60)));
        await(SLACK, () -> keyCount(key) == 2, "the waiter queued");
        KeyValue waiterKey = etcd.keysOf(key).get(1);

        admin.getKVClient().delete(waiterKey.getKey()).get(10, TimeUnit.SECONDS);
        held.close();

        LockLease granted = waiting.get(30, TimeUnit.SECONDS);
        try {
            assertThat(granted.fencingToken()).as("granted under a new key, never on the deleted one")
                    .isGreaterThan(waiterKey.getCreateRevision());
            assertThat(etcd.holdKey(granted).getKey()).isNotEqualTo(waiterKey.getKey());
        } finally {
            CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void anExplicitLeaseIsKeptAliveWhileItsOwnerWaitsAndRunsFromTheGrant() throws Exception {
        String key = key();
        LockLease held = client().acquire(key, SLACK);
        LockClient waiter = client();
        Duration lease = Duration.ofSeconds(2);
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(
                () -> waiter.acquire(LockSpec.of(key).lease(lease).waitFor(Duration.ofSeconds(30))));
        await(SLACK, () -> keyCount(key) == 2, "the waiter queued");
        long queuedAt = etcd.keysOf(key).get(1).getCreateRevision();
        Thread.sleep(lease.multipliedBy(2).toMillis()); // twice the lease: it would have expired unattended
        held.close();
        LockLease granted = waiting.get(30, TimeUnit.SECONDS);
        try {
            assertThat(granted.fencingToken()).as("granted on the key it queued with").isEqualTo(queuedAt);
            assertThat(granted.isValid()).isTrue();
            assertThat(granted.remaining()).isGreaterThan(Duration.ofMillis(500)).isLessThanOrEqualTo(lease);
        } finally {
            CompletableFuture.runAsync(() -> {
                try {
                    granted.close();
                } catch (LockException ignored) {
                    // expired while asserting on a slow machine: the assertions above decide
                }
            }).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void waitersAcrossClientsAreGrantedInArrivalOrder() throws Exception {
        String key = key();
        LockLease held = client().acquire(key, SLACK);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient waiter = client();
            int id = i;
            waiters.add(CompletableFuture.runAsync(() -> {
                try (LockLease lease = waiter.acquire(key, Duration.ofSeconds(60))) {
                    order.add(id);
                }
            }));
            int expected = i + 2;
            await(SLACK, () -> keyCount(key) == expected, "waiter " + i + " queued");
        }
        held.close();
        for (CompletableFuture<Void> waiter : waiters) {
            waiter.get(30, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2);
    }

    @Test
    void aLockOnAPrefixNeverWaitsForLongerKeys() throws Exception {
        LockClient a = client();
        LockClient b = client();
        String parent = key();
        try (LockLease child = a.acquire(parent + "/b", SLACK);
             LockLease deeper = a.acquire(parent + "/", SLACK)) {
            assertThat(etcd.keysOf(parent)).isEmpty();
            try (LockLease lease = b.acquire(parent, Duration.ofSeconds(3))) {
                assertThat(etcd.keysOf(parent)).hasSize(1);
                assertThat(etcd.keysOf(parent + "/b")).hasSize(1);
            }
        }
    }

    @Test
    void frozenServerFailsCallsWithinTheOperationTimeoutAndNoOrphanKeyStays() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        // Leases that outlive the freeze, so that the sessions stay alive and only our clean-up can remove keys.
        LockClient a = client(timeout, Duration.ofSeconds(15));
        LockClient b = client(timeout, Duration.ofSeconds(15));
        String key = key();
        b.acquire(key(), SLACK).close(); // b's session lease exists: its next acquire goes straight to the queue
        LockLease held = a.acquire(key, SLACK);
        server.pause();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(held::close).isInstanceOf(LockException.class);
            // This queueing put reaches the frozen server and is applied when it thaws, long after b gave up.
            assertThatThrownBy(() -> b.acquire(key, Duration.ofSeconds(30))).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(b::ping).isInstanceOf(LockBackendException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.multipliedBy(3).plus(SLACK));
        } finally {
            server.resume();
        }
        // The release that timed out and b's late put are cleaned up in the background; no key may block the
        // lock although a's and b's session leases stay alive.
        await(Duration.ofSeconds(15), () -> keyCount(key) == 0, "the unreleased and the late keys to be cleaned up");
        Thread.sleep(1000);
        assertThat(etcd.keysOf(key)).isEmpty();
        assertThat(client().tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    @Test
    void aKeyDeletedBehindOurBackIsNoticedAtTheNextRenewal() throws Exception {
        LockClient a = client();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        String key = key();
        LockLease lease = a.acquire(key, SLACK).onLost(lost::add);
        admin.getKVClient().delete(etcd.holdKey(lease).getKey()).get(10, TimeUnit.SECONDS);
        await(LEASE.plus(SLACK), () -> lost.size() == 1, "the renewal to notice the deleted key");
        assertThat(lost.get(0).reason()).isEqualTo(LostReason.RENEWAL_REJECTED);
        assertThat(client().tryAcquire(key)).hasValueSatisfying(LockLease::close);
        assertThatThrownBy(lease::close).isInstanceOf(LockException.class);
    }

    @Test
    void unreachableEndpointFailsEveryCallWithinTheOperationTimeout() {
        Duration timeout = Duration.ofSeconds(1);
        LockClient client = LockClient.builder(EtcdTestSupport.unreachable(timeout)).defaultLease(LEASE).build();
        clients.add(client);
        List<Runnable> calls = List.of(() -> client.tryAcquire(key()), () -> client.acquire(key(), Duration.ofSeconds(30)),
                () -> client.acquire(LockSpec.of(key()).lease(Duration.ofSeconds(5))), client::ping);
        for (Runnable call : calls) {
            long start = System.nanoTime();
            assertThatThrownBy(call::run).isInstanceOf(LockBackendException.class).hasMessageContaining("etcd");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.plus(SLACK));
        }
    }

    private static int keyCount(String key) {
        try {
            return etcd.keysOf(key).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static void await(Duration max, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + max + " waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }
}
