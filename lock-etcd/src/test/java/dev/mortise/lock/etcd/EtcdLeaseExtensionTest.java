package dev.mortise.lock.etcd;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14, finding 2: what a renewal or {@code extend} puts in force on etcd, and what the
 * backend tells the core about it. An etcd lease keeps the TTL it was granted with, whatever
 * a keep-alive hopes for; the backend moves the hold's key to a lease with the asked TTL
 * (same key, same create revision, so the fencing token does not change) and reports the TTL
 * in force through {@code appliedLease}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLeaseExtensionTest extends EtcdServerPerClass {

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private EtcdLockBackend backend() {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build();
        closeables.add(backend);
        return backend;
    }

    private LockClient client(Duration defaultLease) {
        LockClient client = LockClient.builder(backend()).defaultLease(defaultLease).build();
        closeables.add(client);
        return client;
    }

    private static String key() {
        return "etcd-extend:" + UUID.randomUUID();
    }

    private static LeaseTimeToLiveResponse serverLease(long leaseId) throws Exception {
        return admin.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS);
    }

    /** The finding as reported: explicit lease 2 s, extend(30 s), another client tries after 5 s. */
    @Test
    void anExtendedExplicitLeaseIsHeldOnTheServerForAsLongAsTheCoreBelieves() throws Exception {
        String key = key();
        LockClient first = client(Duration.ofSeconds(3));
        LockClient second = client(Duration.ofSeconds(3));
        LockLease lease = first.acquire(LockSpec.of(key).lease(Duration.ofSeconds(2)));
        long token = lease.fencingToken();
        lease.extend(Duration.ofSeconds(30)); // re-granted on the server, so extend works (no exception)

        Thread.sleep(5_000);
        Optional<LockLease> taken = second.tryAcquire(key);
        boolean firstValid = lease.isValid();
        taken.ifPresent(LockLease::close);
        assertThat(firstValid && taken.isPresent())
                .as("first lease valid (remaining %s) while a second client was granted", lease.remaining())
                .isFalse();
        assertThat(taken).as("the server applied the 30 s extension").isEmpty();
        assertThat(firstValid).isTrue();
        KeyValue hold = etcd.holdKey(lease);
        assertThat(hold.getCreateRevision()).as("the fencing token does not change").isEqualTo(token);
        assertThat(serverLease(hold.getLease()).getGrantedTTL()).isEqualTo(30);
        lease.close();
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    /** A renewed hold on a 3 s session, extended to 30 s: the server's lease of the key must outlast what the core believes. */
    @Test
    void anExtendedRenewedHoldIsBelievedNoLongerThanTheServerKeepsIt() throws Exception {
        String key = key();
        LockClient client = client(Duration.ofSeconds(3));
        try (LockLease lease = client.acquire(key, Duration.ofSeconds(5))) {
            long token = lease.fencingToken();
            long start = System.nanoTime();
            lease.extend(Duration.ofSeconds(30));
            Duration believed = lease.remaining();
            KeyValue hold = etcd.holdKey(lease);
            LeaseTimeToLiveResponse onServer = serverLease(hold.getLease());
            Duration serverLeft = Duration.ofSeconds(onServer.getTTL()).plusSeconds(1) // etcd truncates to seconds
                    .minusNanos(System.nanoTime() - start);
            assertThat(believed).as("the core believes %s, etcd keeps the key's lease %s s (granted %s s)",
                    believed, onServer.getTTL(), onServer.getGrantedTTL()).isLessThanOrEqualTo(serverLeft);
            assertThat(hold.getCreateRevision()).isEqualTo(token);
        }
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    /**
     * As above, after the watchdog has renewed the extended hold (every third of the 3 s
     * default lease): it must renew it with the hold's own (extended) lease, and the core
     * must believe only what that renewal put in force. Needs the core to renew each hold
     * with its own lease and to count validity from {@code appliedLease}, never the maximum
     * of earlier deadlines (DESIGN.md point 4).
     */
    @Test
    void anExtendedRenewedHoldStaysBelievedNoLongerThanTheServerKeepsItAfterWatchdogRenewals() throws Exception {
        String key = key();
        LockClient client = client(Duration.ofSeconds(3));
        try (LockLease lease = client.acquire(key, Duration.ofSeconds(5))) {
            lease.extend(Duration.ofSeconds(30));
            Thread.sleep(2_500); // at least two watchdog ticks
            long start = System.nanoTime();
            Duration believed = lease.remaining();
            KeyValue hold = etcd.holdKey(lease);
            LeaseTimeToLiveResponse onServer = serverLease(hold.getLease());
            Duration serverLeft = Duration.ofSeconds(onServer.getTTL()).plusSeconds(1)
                    .minusNanos(System.nanoTime() - start);
            assertThat(believed).as("after watchdog renewals the core believes %s, etcd keeps the key's lease %s s "
                    + "(granted %s s)", believed, onServer.getTTL(), onServer.getGrantedTTL())
                    .isLessThanOrEqualTo(serverLeft);
        }
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    /**
     * A grant and a renewal answer the TTL etcd put in force: whole seconds rounded up, then raised to
     * etcd's minimum TTL (2 s with the launcher's 1 s election timeout).
     */
    @Test
    void theAppliedLeaseAnsweredIsTheTtlEtcdGrantedForTheHoldsLease() throws Exception {
        EtcdLockBackend backend = backend();
        List<String> measured = new ArrayList<>();
        for (Duration asked : List.of(Duration.ofMillis(600), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofMillis(2500))) {
            Grant grant = granted(backend, asked, false);
            long granted = serverLease(etcd.keysOf(grant.key()).get(0).getLease()).getGrantedTTL();
            measured.add(asked.toMillis() + " ms -> " + granted + " s");
            assertThat(grant.appliedLease()).as("asked %s", asked).contains(Duration.ofSeconds(granted));
            assertThat(grant.appliedLease().orElseThrow()).isGreaterThanOrEqualTo(asked);
            assertThat(backend.renew(grant, asked)).as("renewed, asked %s", asked).contains(Duration.ofSeconds(granted));
            assertThat(backend.release(grant)).isTrue();
        }
        System.out.println("etcd granted TTLs: " + measured);
        assertThat(measured).containsExactly("600 ms -> 2 s", "1000 ms -> 2 s", "2000 ms -> 2 s", "2500 ms -> 3 s");
    }

    @Test
    void renewWithAnotherLeaseMovesTheKeyToALeaseOfThatTtlAndKeepsTheToken() throws Exception {
        EtcdLockBackend backend = backend();
        for (boolean renewed : new boolean[] {false, true}) {
            Grant grant = granted(backend, Duration.ofSeconds(3), renewed);
            KeyValue before = etcd.keysOf(grant.key()).get(0);
            assertThat(grant.appliedLease()).contains(Duration.ofSeconds(3));

            assertThat(backend.renew(grant, Duration.ofSeconds(10))).contains(Duration.ofSeconds(10));
            KeyValue after = etcd.keysOf(grant.key()).get(0);
            assertThat(after.getCreateRevision()).isEqualTo(before.getCreateRevision()).isEqualTo(grant.fencingToken());
            assertThat(serverLease(after.getLease()).getGrantedTTL()).isEqualTo(10);
            if (!renewed) {
                // The old lease is revoked after the move, off the caller's path: wait for it (loaded machines).
                long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                while (serverLease(before.getLease()).getTTL() != -1 && System.nanoTime() < until) {
                    Thread.sleep(50);
                }
                assertThat(serverLease(before.getLease()).getTTL()).as("the old per-lock lease is revoked").isEqualTo(-1);
            }

            assertThat(backend.renew(grant, Duration.ofSeconds(3))).contains(Duration.ofSeconds(3));
            KeyValue back = etcd.keysOf(grant.key()).get(0);
            assertThat(serverLease(back.getLease()).getGrantedTTL()).isEqualTo(3);
            if (renewed) {
                assertThat(back.getLease()).as("back on the 3 s session").isEqualTo(before.getLease());
            }
            assertThat(backend.release(grant)).isTrue();
            assertThat(etcd.keysOf(grant.key())).isEmpty();
        }
    }

    /** renewAll(grants, lease) renews every grant with that lease, whichever lease each is on now. */
    @Test
    void renewAllRenewsHoldsOnTheSessionAndHoldsMovedElsewhereWithTheAskedLease() throws Exception {
        EtcdLockBackend backend = backend();
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            grants.add(granted(backend, Duration.ofSeconds(3), true));
        }
        long session = etcd.keysOf(grants.get(0).key()).get(0).getLease();
        assertThat(backend.renew(grants.get(1), Duration.ofSeconds(10))).isPresent();

        Renewals renewed = backend.renewAll(grants, Duration.ofSeconds(3));
        assertThat(renewed.gone()).isEmpty();
        for (Grant grant : grants) {
            assertThat(etcd.keysOf(grant.key()).get(0).getLease()).isEqualTo(session);
            assertThat(renewed.applied(grant)).contains(Duration.ofSeconds(3));
        }
        renewed = backend.renewAll(grants, Duration.ofSeconds(10));
        assertThat(renewed.gone()).isEmpty();
        for (Grant grant : grants) {
            assertThat(serverLease(etcd.keysOf(grant.key()).get(0).getLease()).getGrantedTTL()).isEqualTo(10);
            assertThat(renewed.applied(grant)).contains(Duration.ofSeconds(10));
        }
        admin.getKVClient().delete(etcd.keysOf(grants.get(2).key()).get(0).getKey()).get(10, TimeUnit.SECONDS);
        assertThat(backend.renewAll(grants, Duration.ofSeconds(3)).gone()).containsExactly(grants.get(2));
        for (Grant grant : grants.subList(0, 2)) {
            assertThat(backend.release(grant)).isTrue();
        }
    }

    private static Grant granted(EtcdLockBackend backend, Duration lease, boolean renewed) {
        Attempt attempt = backend.tryAcquire(new LockRequest(key(), "owner-" + UUID.randomUUID(), lease, renewed));
        assertThat(attempt.isGranted()).isTrue();
        return attempt.grant().orElseThrow();
    }
}
