package dev.mortise.lock.etcd;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.tck.server.EtcdCluster;
import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real three-member etcd cluster on loopback, faulted while locks are held and waited
 * for: the leader killed (SIGKILL), a member frozen (SIGSTOP) and thawed. Three clients,
 * each first talking to a different member, contend for one key through a fenced ledger
 * that flags any double grant or token out of order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EtcdClusterTest {

    private static final Duration LEASE = Duration.ofSeconds(6);
    private static EtcdCluster cluster;

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map grantsByClient = new Map();
    private final FencedLedger ledger = new FencedLedger();

    /** Grants per client after a given moment. */
    private static final class Map extends ConcurrentHashMap<Integer, AtomicInteger> {
        int of(int client) {
            return computeIfAbsent(client, c -> new AtomicInteger()).get();
        }
    }

    @BeforeAll
    static void startCluster() {
        cluster = new EtcdCluster(3).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void stopWorkers() throws InterruptedException {
        stop.set(true);
        for (Thread worker : workers) {
            worker.join(30_000);
        }
        clients.forEach(LockClient::close);
        for (EtcdServer member : cluster.members()) {
            member.resume();
            if (!member.isRunning()) {
                member.start();
            }
        }
    }

    @Test
    void killingTheLeaderWhileLocksAreHeldAndAwaitedGrantsNothingTwice() throws Exception {
        String key = "cluster:" + UUID.randomUUID();
        startContention(key);
        awaitProgress(5, "grants before the fault");
        EtcdServer leader = leader();
        Map before = snapshot();
        leader.kill();
        awaitEveryClientGrantedAfter(before, "grants to every client after the leader was killed");
        assertThat(ledger.violations()).isEmpty();
    }

    @Test
    void freezingAMemberAndThawingItGrantsNothingTwice() throws Exception {
        String key = "cluster:" + UUID.randomUUID();
        startContention(key);
        awaitProgress(5, "grants before the fault");
        EtcdServer frozen = leader();
        frozen.pause();
        try {
            Thread.sleep(4000);
        } finally {
            frozen.resume();
        }
        Map before = snapshot();
        awaitEveryClientGrantedAfter(before, "grants to every client after the member was thawed");
        assertThat(ledger.violations()).isEmpty();
    }

    @Test
    void aHeldLockSurvivesLeaderFailoverAndStaysExclusive() throws Exception {
        String key = "cluster:" + UUID.randomUUID();
        EtcdServer leader = leader();
        List<String> leaderFirst = new ArrayList<>(List.of(leader.endpoint()));
        cluster.endpoints().stream().filter(e -> !e.equals(leader.endpoint())).forEach(leaderFirst::add);
        LockClient holder = client(leaderFirst);
        LockClient other = client(leaderFirst.subList(1, 3));
        LockLease lease = holder.acquire(key, Duration.ofSeconds(10));
        long token = lease.fencingToken();
        try {
            leader.kill();
            Thread.sleep(LEASE.multipliedBy(2).toMillis());
            assertThat(lease.isValid()).as("renewed through the new leader").isTrue();
            assertThat(other.tryAcquire(key)).isEmpty();
        } finally {
            CompletableFuture.runAsync(lease::close).exceptionally(e -> null).get(30, TimeUnit.SECONDS);
        }
        try (LockLease next = other.acquire(key, Duration.ofSeconds(10))) {
            assertThat(next.fencingToken()).isGreaterThan(token);
        }
    }

    private LockClient client(List<String> endpoints) {
        LockClient client = LockClient.builder(EtcdTestSupport.backend(endpoints)
                .operationTimeout(Duration.ofSeconds(3)).build()).defaultLease(LEASE).build();
        clients.add(client);
        return client;
    }

    private void startContention(String key) {
        List<String> endpoints = cluster.endpoints();
        for (int c = 0; c < 3; c++) {
            List<String> rotated = new ArrayList<>(endpoints.subList(c, 3));
            rotated.addAll(endpoints.subList(0, c));
            LockClient client = client(rotated);
            int id = c;
            for (int t = 0; t < 2; t++) {
                Thread worker = new Thread(() -> work(client, id, key), "contender-" + c + "-" + t);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
        }
    }

    private void work(LockClient client, int id, String key) {
        while (!stop.get()) {
            LockLease lease;
            try {
                lease = client.acquire(key, Duration.ofSeconds(20));
            } catch (LockException e) {
                pause(100); // the cluster is electing, or this client's member is down: try again
                continue;
            }
            ledger.enter(lease);
            if (lease.isValid()) {
                grantsByClient.computeIfAbsent(id, c -> new AtomicInteger()).incrementAndGet();
            }
            pause(20);
            ledger.leave(lease);
            try {
                lease.close();
            } catch (LockException e) {
                // lost during the fault, or the release could not reach etcd: it ends with its lease
            }
        }
    }

    private Map snapshot() {
        Map copy = new Map();
        for (int c = 0; c < 3; c++) {
            copy.computeIfAbsent(c, x -> new AtomicInteger()).set(grantsByClient.of(c));
        }
        return copy;
    }

    private void awaitProgress(int grants, String what) throws InterruptedException {
        EtcdLockBackendTest.await(Duration.ofSeconds(60), () -> ledger.entries() >= grants, what);
    }

    private void awaitEveryClientGrantedAfter(Map before, String what) throws InterruptedException {
        EtcdLockBackendTest.await(Duration.ofSeconds(90), () -> {
            for (int c = 0; c < 3; c++) {
                if (grantsByClient.of(c) <= before.of(c)) {
                    return false;
                }
            }
            return true;
        }, what);
    }

    private static EtcdServer leader() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (EtcdServer member : cluster.members()) {
                if (member.isRunning() && EtcdMetrics.isLeader(member.endpoint())) {
                    return member;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no etcd member reports being the leader");
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
