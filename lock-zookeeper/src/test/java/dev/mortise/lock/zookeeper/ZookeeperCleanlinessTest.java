package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nothing is left on the server: after a run full of timeouts, interrupts, busy
 * tryAcquires and expiring explicit leases, no lock or waiter node remains while every
 * client is still open (so no session end cleaned up for us), and the server reaps the
 * empty parents — which never gets in the way of a new acquirer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperCleanlinessTest {

    private static final String ROOT = "/cleanliness/locks";

    private TestingServer server;
    private CuratorFramework admin;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = ZookeeperTestServers.startServer();
        admin = ZookeeperTestServers.admin(server.getConnectString());
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(LockClient::close);
        admin.close();
        server.close();
    }

    private LockClient client() {
        LockClient client = LockClient.builder(ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .rootPath(ROOT).operationTimeout(Duration.ofSeconds(5)).build()).defaultLease(Duration.ofSeconds(2))
                .build();
        clients.add(client);
        return client;
    }

    @Test
    void noStrayNodesRemainAfterInterruptsTimeoutsAndExpiries() throws Exception {
        List<LockClient> three = List.of(client(), client(), client());
        List<String> keys = List.of("clean:a", "clean:b/ü", "clean:.");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger interrupted = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        AtomicInteger grantedTooLate = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LockClient client = three.get(t % 3);
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (running.get()) {
                    String key = keys.get(random.nextInt(keys.size()));
                    try {
                        Optional<LockLease> lease = switch (random.nextInt(3)) {
                            case 0 -> client.tryAcquire(key);
                            case 1 -> client.tryAcquire(key, Duration.ofMillis(random.nextInt(1, 80)));
                            default -> client.tryAcquire(LockSpec.of(key).waitFor(Duration.ofMillis(200))
                                    .lease(Duration.ofMillis(random.nextInt(20, 150))));
                        };
                        if (lease.isEmpty()) {
                            timedOut.incrementAndGet();
                            continue;
                        }
                        granted.incrementAndGet();
                        try (LockLease held = lease.get()) {
                            Thread.sleep(random.nextInt(0, 60));
                        } catch (LockLostException expiredExplicitLease) {
                            // an explicit lease that ran out while held: expected here
                        }
                    } catch (InterruptedException | dev.mortise.lock.LockInterruptedException e) {
                        interrupted.incrementAndGet();
                        Thread.interrupted();
                    } catch (dev.mortise.lock.LockBackendException e) {
                        if (String.valueOf(e.getMessage()).contains("after its lease")) {
                            // A lease of a few dozen ms can run out on the way back on a loaded machine: the core
                            // then gives the grant up at once (its node must not stay behind either).
                            grantedTooLate.incrementAndGet();
                        } else {
                            unexpected.add(e);
                        }
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }
            }, "clean-" + t);
            workers.add(worker);
            worker.start();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (System.nanoTime() < end) {
            workers.get(ThreadLocalRandom.current().nextInt(workers.size())).interrupt();
            Thread.sleep(15);
        }
        running.set(false);
        for (Thread worker : workers) {
            worker.join(30_000);
            assertThat(worker.isAlive()).as("worker finished").isFalse();
        }

        System.out.printf("cleanliness: %d granted, %d granted after their lease ran out, %d busy or timed out, "
                + "%d interrupted%n", granted.get(), grantedTooLate.get(), timedOut.get(), interrupted.get());
        assertThat(unexpected).as("unexpected failures").isEmpty();
        assertThat(interrupted.get()).as("interrupted acquires").isPositive();
        assertThat(timedOut.get()).as("busy or timed-out acquires").isPositive();
        assertThat(granted.get()).as("granted acquires").isPositive();
        // Explicit leases end on the server by a background delete: give it a moment.
        await(Duration.ofSeconds(5), () -> lockNodes() == 0, "no lock or waiter node left (found " + lockNodes() + ")");
        await(Duration.ofSeconds(15), () -> parents() == 0, "the server to reap the empty key parents");
        for (LockClient client : three) {
            for (String key : keys) {
                client.tryAcquire(key).orElseThrow().close();
            }
        }
    }

    @Test
    void aReapedParentIsRecreatedForTheNextAcquirer() throws Exception {
        LockClient a = client();
        LockClient b = client();
        String key = "clean:reaped";
        String parent = ROOT + "/" + dev.mortise.lock.zookeeper.internal.LockPaths.segment(key);
        for (int round = 0; round < 3; round++) {
            long token;
            try (LockLease lease = a.acquire(key, Duration.ofSeconds(5))) {
                token = lease.fencingToken();
            }
            await(Duration.ofSeconds(15), () -> !exists(parent), "the empty parent to be reaped");
            try (LockLease lease = b.acquire(key, Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).as("czxid keeps increasing across a reaped parent").isGreaterThan(token);
            }
        }
        // Acquirers racing the reaper: every acquire must succeed.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        int rounds = 0;
        while (System.nanoTime() < end) {
            (rounds % 2 == 0 ? a : b).acquire(key, Duration.ofSeconds(5)).close();
            Thread.sleep(ThreadLocalRandom.current().nextInt(0, 700));
            rounds++;
        }
        assertThat(rounds).isPositive();
    }

    private int lockNodes() {
        try {
            return ZookeeperTestServers.lockNodesUnder(admin, ROOT);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private int parents() {
        try {
            return ZookeeperTestServers.children(admin, ROOT).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private boolean exists(String path) {
        try {
            return admin.checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
