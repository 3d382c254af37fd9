package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import dev.mortise.lock.zookeeper.internal.NodeRef;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static dev.mortise.lock.zookeeper.ZookeeperTestServers.packetsReceived;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared (read) mode at the SPI level, against a real server, every backend with its own
 * session (as separate processes would be): readers coexist and exclude writers, a waiting
 * writer keeps new readers out, tokens follow the key's one order, releases wake exactly the
 * waiters that can go, waiters that give up leave nothing, a short shared lease ends, and the
 * requests per operation are those of the exclusive path.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperSharedModeTest {

    private static final LockPaths PATHS = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private static TestingServer server;
    private static CuratorFramework admin;

    private final List<ZookeeperLockBackend> backends = new ArrayList<>();
    private final List<CuratorFramework> curators = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final AtomicInteger owners = new AtomicInteger();

    @BeforeAll
    static void startServer() throws Exception {
        server = ZookeeperTestServers.startServer();
        admin = ZookeeperTestServers.admin(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeBackends() {
        pool.shutdownNow();
        backends.forEach(ZookeeperLockBackend::close);
        curators.forEach(CuratorFramework::close);
    }

    @Test
    void readersCoexistAndKeepWritersOut() throws Exception {
        String key = "rw:coexist";
        ZookeeperLockBackend one = backend();
        ZookeeperLockBackend two = backend();
        assertThat(one.supportsSharedMode()).isTrue();
        Grant r1 = one.tryAcquire(shared(key)).grant().orElseThrow();
        Grant r2 = two.tryAcquire(shared(key)).grant().orElseThrow();
        Grant r3 = two.acquire(shared(key), Duration.ofSeconds(5)).orElseThrow();
        assertThat(r1.<NodeRef>state().shared()).isTrue();

        assertThat(one.tryAcquire(exclusive(key)).isGranted()).as("writer while 3 readers hold").isFalse();
        assertThat(two.acquire(exclusive(key), Duration.ofMillis(200))).as("waiting writer").isEmpty();
        assertThat(nodes(key)).as("only the three readers' nodes").hasSize(3);

        assertThat(one.release(r1)).isTrue();
        assertThat(two.release(r2)).isTrue();
        assertThat(two.release(r3)).isTrue();
        assertThat(two.release(r3)).as("released twice").isFalse();
        Grant w = one.tryAcquire(exclusive(key)).grant().orElseThrow();
        assertThat(w.<NodeRef>state().shared()).isFalse();
        assertThat(one.release(w)).isTrue();
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void aWriterKeepsReadersOut() throws Exception {
        String key = "rw:writer-holds";
        ZookeeperLockBackend one = backend();
        ZookeeperLockBackend two = backend();
        Grant w = one.tryAcquire(exclusive(key)).grant().orElseThrow();
        assertThat(two.tryAcquire(shared(key)).isGranted()).isFalse();
        assertThat(two.acquire(shared(key), Duration.ofMillis(200))).isEmpty();
        assertThat(one.tryAcquire(exclusive(key)).isGranted()).isFalse();
        assertThat(nodes(key)).as("only the writer's node").hasSize(1);
        assertThat(one.release(w)).isTrue();
        Grant r = two.tryAcquire(shared(key)).grant().orElseThrow();
        assertThat(two.release(r)).isTrue();
    }

    @Test
    void aWaitingWriterKeepsNewReadersOutAcrossClients() throws Exception {
        String key = "rw:writer-preference";
        ZookeeperLockBackend readers = backend();
        ZookeeperLockBackend writers = backend();
        ZookeeperLockBackend late = backend();
        Grant r1 = readers.tryAcquire(shared(key)).grant().orElseThrow();
        Future<Optional<Grant>> writer = pool.submit(() -> writers.acquire(exclusive(key), LONG_WAIT));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == 2, "the writer queued");

        assertThat(late.tryAcquire(shared(key)).isGranted()).as("new reader while a writer waits").isFalse();
        assertThat(late.acquire(shared(key), Duration.ofMillis(200))).as("new reader waiting behind it").isEmpty();
        Future<Optional<Grant>> reader = pool.submit(() -> late.acquire(shared(key), LONG_WAIT));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == 3, "the late reader queued");
        assertThat(writer.isDone()).isFalse();

        assertThat(readers.release(r1)).as("the last reader leaves").isTrue();
        Grant w = writer.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(reader.isDone()).as("the late reader waits for the writer").isFalse();
        assertThat(writers.release(w)).isTrue();
        Grant r2 = reader.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(r2.fencingToken()).isGreaterThan(w.fencingToken());
        assertThat(w.fencingToken()).isGreaterThan(r1.fencingToken());
        assertThat(late.release(r2)).isTrue();
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void tokensStrictlyIncreaseOverMixedGrants() throws Exception {
        String key = "rw:tokens";
        ZookeeperLockBackend one = backend();
        ZookeeperLockBackend two = backend();
        List<Long> tokens = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            Grant a = one.acquire(shared(key), Duration.ofSeconds(5)).orElseThrow();
            Grant b = two.acquire(shared(key), Duration.ofSeconds(5)).orElseThrow();
            tokens.add(a.fencingToken());
            tokens.add(b.fencingToken());
            one.release(a);
            two.release(b);
            Grant w = (round % 2 == 0 ? one : two).acquire(exclusive(key), Duration.ofSeconds(5)).orElseThrow();
            tokens.add(w.fencingToken());
            (round % 2 == 0 ? one : two).release(w);
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aWritersReleaseWakesExactlyTheReadersThatCanGoAndTheLastReaderWakesTheWriter() throws Exception {
        String key = "rw:wake";
        int readerCount = 6;
        ZookeeperLockBackend holder = backend();
        Grant w1 = holder.tryAcquire(exclusive(key)).grant().orElseThrow();

        // One session per waiter (as separate processes): each client then watches exactly one node.
        List<ZookeeperLockBackend> readerBackends = new ArrayList<>();
        List<Future<Optional<Grant>>> readers = new ArrayList<>();
        for (int i = 0; i < readerCount; i++) {
            ZookeeperLockBackend backend = sessionBackend();
            readerBackends.add(backend);
            readers.add(pool.submit(() -> backend.acquire(shared(key), LONG_WAIT)));
            int queued = i + 2;
            await(Duration.ofSeconds(30), () -> nodes(key).size() == queued, "reader " + i + " queued");
        }
        ZookeeperLockBackend writerBackend = sessionBackend();
        Future<Optional<Grant>> w2 = pool.submit(() -> writerBackend.acquire(exclusive(key), LONG_WAIT));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == readerCount + 2, "the second writer queued");
        ZookeeperLockBackend lateBackend = sessionBackend();
        Future<Optional<Grant>> lateReader = pool.submit(() -> lateBackend.acquire(shared(key), LONG_WAIT));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == readerCount + 3, "the late reader queued");
        List<ZookeeperLockBackend> waiters = new ArrayList<>(readerBackends);
        waiters.add(writerBackend);
        waiters.add(lateBackend);
        await(Duration.ofSeconds(30), () -> dataWatches(key) == readerCount + 2, "every waiter watching");
        assertThat(notifications(waiters)).isZero();

        assertThat(holder.release(w1)).isTrue();
        List<Grant> granted = new ArrayList<>();
        for (Future<Optional<Grant>> reader : readers) {
            granted.add(reader.get(30, TimeUnit.SECONDS).orElseThrow());
        }
        assertThat(notifications(waiters)).as("one notification per reader that can go, none for the rest")
                .isEqualTo(readerCount);
        assertThat(w2.isDone()).isFalse();
        assertThat(lateReader.isDone()).isFalse();

        for (int i = 0; i < readerCount; i++) {
            assertThat(readerBackends.get(i).release(granted.get(i))).isTrue();
            if (i < readerCount - 1) {
                assertThat(w2.isDone()).as("writer while %d readers still hold", readerCount - 1 - i).isFalse();
            }
        }
        Grant w = w2.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(notifications(waiters)).as("only the last reader's release woke the writer")
                .isEqualTo(readerCount + 1);
        assertThat(lateReader.isDone()).isFalse();
        assertThat(writerBackend.release(w)).isTrue();
        Grant late = lateReader.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(notifications(waiters)).isEqualTo(readerCount + 2);
        assertThat(lateBackend.release(late)).isTrue();
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void waitersThatTimeOutOrAreInterruptedLeaveNothing() throws Exception {
        String key = "rw:give-up";
        ZookeeperLockBackend holder = backend();
        ZookeeperLockBackend waiter = backend();

        Grant w = holder.tryAcquire(exclusive(key)).grant().orElseThrow();
        assertThat(waiter.acquire(shared(key), Duration.ofMillis(100))).isEmpty();
        assertThat(nodes(key)).hasSize(1);
        assertInterrupted(waiter, shared(key), key, 1);
        holder.release(w);

        Grant r = holder.tryAcquire(shared(key)).grant().orElseThrow();
        assertThat(waiter.acquire(exclusive(key), Duration.ofMillis(100))).isEmpty();
        assertThat(nodes(key)).hasSize(1);
        assertInterrupted(waiter, exclusive(key), key, 1);
        assertThat(holder.release(r)).isTrue();
        assertThat(nodes(key)).isEmpty();
        assertThat(waiter.watchNotifications()).as("notifications to waiters that had given up").isZero();
    }

    @Test
    void aWriterThatGivesUpLetsTheReadersBehindItGo() throws Exception {
        String key = "rw:writer-gives-up";
        ZookeeperLockBackend one = backend();
        ZookeeperLockBackend two = backend();
        ZookeeperLockBackend three = backend();
        Grant r1 = one.tryAcquire(shared(key)).grant().orElseThrow();
        Future<Optional<Grant>> writer = pool.submit(() -> two.acquire(exclusive(key), Duration.ofSeconds(2)));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == 2, "the writer queued");
        Future<Optional<Grant>> reader = pool.submit(() -> three.acquire(shared(key), LONG_WAIT));
        await(Duration.ofSeconds(30), () -> nodes(key).size() == 3, "the reader queued behind it");
        assertThat(writer.get(30, TimeUnit.SECONDS)).isEmpty();
        Grant r2 = reader.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(nodes(key)).as("both readers, no writer").hasSize(2);
        one.release(r1);
        three.release(r2);
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void aSharedHoldEndsWithItsShortLeaseAndWithLinger() throws Exception {
        String key = "rw:expiry";
        ZookeeperLockBackend reader = backend();
        ZookeeperLockBackend writer = backend();
        reader.tryAcquire(new LockRequest(key, owner(), Duration.ofMillis(300), false, LockMode.SHARED))
                .grant().orElseThrow();
        Grant w = writer.acquire(exclusive(key), Duration.ofSeconds(20)).orElseThrow();
        writer.release(w);

        Grant lingering = reader.tryAcquire(shared(key)).grant().orElseThrow();
        assertThat(reader.linger(lingering, Duration.ofMillis(300))).isTrue();
        w = writer.acquire(exclusive(key), Duration.ofSeconds(20)).orElseThrow();
        writer.release(w);
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void renewAllConfirmsSharedAndExclusiveHoldsTogetherInOneRequest() throws Exception {
        ZookeeperLockBackend backend = backend();
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            LockRequest request = i % 2 == 0 ? shared("rw:renew:" + i / 4) : exclusive("rw:renew:x" + i);
            grants.add(backend.tryAcquire(request).grant().orElseThrow());
        }
        // Two readers of one key held by one client: both confirmed.
        grants.add(backend.tryAcquire(shared("rw:renew:0")).grant().orElseThrow());
        assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, LEASE).gone()).isEmpty())).isLessThanOrEqualTo(1 + 1);

        Grant broken = grants.get(0);
        admin.delete().forPath(broken.<NodeRef>state().path());
        assertThat(backend.renewAll(grants, LEASE).gone()).containsExactly(broken);
        assertThat(backend.renew(grants.get(2), LEASE)).isPresent();
        for (Grant grant : grants.subList(1, grants.size())) {
            assertThat(backend.release(grant)).isTrue();
        }
    }

    @Test
    void sharedRequestsCostWhatExclusiveOnesCost() throws Exception {
        String key = "rw:requests";
        String parent = PATHS.parent(key);
        // A stray child keeps the key's container from being reaped (and re-created) mid-count.
        admin.create().creatingParentContainersIfNeeded().forPath(parent + "/keep");
        try {
            ZookeeperLockBackend backend = backend();
            ZookeeperLockBackend other = backend();
            backend.release(backend.acquire(shared(key), Duration.ofSeconds(5)).orElseThrow());
            int cycles = 20;
            long exclusive = requestsFor(() -> cycle(backend, exclusive(key), cycles));
            long shared = requestsFor(() -> cycle(backend, shared(key), cycles));
            Grant otherReader = other.acquire(shared(key), Duration.ofSeconds(5)).orElseThrow();
            long sharedBesideAReader = requestsFor(() -> cycle(backend, shared(key), cycles));
            other.release(otherReader);
            long tryShared = requestsFor(() -> {
                for (int i = 0; i < cycles; i++) {
                    backend.release(backend.tryAcquire(shared(key)).grant().orElseThrow());
                }
            });
            Grant w = other.tryAcquire(exclusive(key)).grant().orElseThrow();
            long busyShared = requestsFor(() -> {
                for (int i = 0; i < cycles; i++) {
                    assertThat(backend.tryAcquire(shared(key)).isGranted()).isFalse();
                }
            });
            other.release(w);
            // A stray heartbeat of another session may fall into a window; another request per cycle may not.
            assertThat(exclusive).as("exclusive acquire+release").isBetween(3L * cycles, 3L * cycles + 3);
            assertThat(shared).as("shared acquire+release").isBetween(3L * cycles, 3L * cycles + 3);
            assertThat(sharedBesideAReader).as("shared acquire+release beside another reader")
                    .isBetween(3L * cycles, 3L * cycles + 3);
            assertThat(tryShared).as("shared tryAcquire+release").isBetween(4L * cycles, 4L * cycles + 3);
            assertThat(busyShared).as("busy shared tryAcquire: one listing").isBetween((long) cycles, cycles + 3L);
        } finally {
            admin.delete().forPath(parent + "/keep");
        }
    }

    // ---- helpers -----------------------------------------------------------------------

    private static void cycle(ZookeeperLockBackend backend, LockRequest request, int cycles)
            throws InterruptedException {
        for (int i = 0; i < cycles; i++) {
            Grant grant = backend.acquire(new LockRequest(request.key(), request.owner() + "-" + i, request.lease(),
                    request.renewed(), request.mode()), Duration.ofSeconds(5)).orElseThrow();
            assertThat(backend.release(grant)).isTrue();
        }
    }

    private void assertInterrupted(ZookeeperLockBackend waiter, LockRequest request, String key, int remaining)
            throws Exception {
        Thread thread = Thread.currentThread();
        Future<?> interrupter = pool.submit(() -> {
            await(Duration.ofSeconds(30), () -> nodes(key).size() == remaining + 1, "the waiter queued");
            thread.interrupt();
            return null;
        });
        assertThatThrownBy(() -> waiter.acquire(request, LONG_WAIT)).isInstanceOf(InterruptedException.class);
        Thread.interrupted();
        interrupter.get(30, TimeUnit.SECONDS);
        assertThat(nodes(key)).as("nodes after an interrupted %s waiter", request.mode()).hasSize(remaining);
    }

    /** A backend on a client of this test's own, so that its watches can be looked at. */
    private ZookeeperLockBackend sessionBackend() throws InterruptedException {
        CuratorFramework curator = ZookeeperTestServers.curator(server.getConnectString(), Duration.ofSeconds(10));
        curators.add(curator);
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(curator).build();
        backends.add(backend);
        return backend;
    }

    private ZookeeperLockBackend backend() {
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(10)).build();
        backends.add(backend);
        return backend;
    }

    private LockRequest shared(String key) {
        return new LockRequest(key, owner(), LEASE, true, LockMode.SHARED);
    }

    private LockRequest exclusive(String key) {
        return new LockRequest(key, owner(), LEASE, true, LockMode.EXCLUSIVE);
    }

    private String owner() {
        return "owner-" + owners.incrementAndGet();
    }

    /** Lock and waiter nodes of {@code key} on the server. */
    private static List<String> nodes(String key) {
        try {
            return ZookeeperTestServers.children(admin, PATHS.parent(key));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static long notifications(List<ZookeeperLockBackend> backends) {
        return backends.stream().mapToLong(ZookeeperLockBackend::watchNotifications).sum();
    }

    /** Data watches this test's own clients registered on the key's lock nodes. */
    private long dataWatches(String key) {
        String parent = PATHS.parent(key);
        long watches = 0;
        for (CuratorFramework curator : curators) {
            try {
                watches += org.apache.curator.test.WatchersDebug.getDataWatches(curator.getZookeeperClient()
                        .getZooKeeper()).stream().filter(path -> path.startsWith(parent + "/")).count();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return watches;
    }

    private interface Step {
        void run() throws Exception;
    }

    /** Requests the server received while {@code step} ran. */
    private static long requestsFor(Step step) throws Exception {
        long before = packetsReceived(server.getConnectString());
        step.run();
        long requests = packetsReceived(server.getConnectString()) - before - 1;
        System.out.printf("zookeeper requests: %d%n", requests);
        return requests;
    }
}
