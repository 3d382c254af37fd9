package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ZookeeperLockBackend#inspect} against a real server, every backend with its own
 * session: free keys, an exclusive hold (no remaining lease: session-bound), readers, waiters,
 * release, an explicit lease that ran out, a hold left to linger (with and without its client),
 * keys of every shape, and that inspecting changes nothing on the server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperInspectTest {

    private static final LockPaths PATHS = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String[] KEY_FORMS = {"inspect:%s", "/%s", "#%s", ".", "..%s", "%%%s", " %s", "ä/%s",
            "読み書き %s", "\uD83D\uDD12%s", "linger-czxid%s", "lock-0000000001%s"};

    private static TestingServer server;
    private static CuratorFramework admin;

    private final List<ZookeeperLockBackend> backends = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

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
    }

    private ZookeeperLockBackend backend() {
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(10)).build();
        backends.add(backend);
        return backend;
    }

    private static String owner() {
        return UUID.randomUUID() + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static LockRequest request(String key, LockMode mode) {
        return new LockRequest(key, owner(), LEASE, true, mode);
    }

    private static List<String> nodes(String key) {
        try {
            return ZookeeperTestServers.children(admin, PATHS.parent(key));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void assertSessionHolder(KeyState.Holder holder, Grant grant) {
        assertThat(holder.owner()).isEqualTo(grant.owner());
        assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
        assertThat(holder.remaining()).as("session-bound: no lease on the server").isEmpty();
    }

    @Test
    void aFreeKeyIsFreeWithNoWaiters() {
        KeyState state = backend().inspect("inspect-free:" + UUID.randomUUID());
        assertThat(state.held()).isFalse();
        assertThat(state).isEqualTo(KeyState.free(OptionalInt.of(0)));
    }

    @Test
    void anExclusiveHoldShowsItsOwnerAndTokenAndInspectingChangesNothing() throws Exception {
        ZookeeperLockBackend holder = backend();
        ZookeeperLockBackend looker = backend();
        for (String form : KEY_FORMS) {
            String key = String.format(form, UUID.randomUUID());
            for (boolean renewed : new boolean[] {true, false}) {
                Grant grant = holder.tryAcquire(new LockRequest(key, owner(), LEASE, renewed)).grant().orElseThrow();
                Stat before = admin.checkExists().forPath(PATHS.parent(key));
                KeyState state = looker.inspect(key);
                Stat after = admin.checkExists().forPath(PATHS.parent(key));
                assertThat(after).as("the key's parent is untouched: no child created or deleted").isEqualTo(before);

                assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
                assertThat(state.holders()).hasSize(1);
                assertSessionHolder(state.holders().get(0), grant);
                assertThat(state.waiters()).hasValue(0);
                assertThat(nodes(key)).hasSize(1);

                assertThat(holder.release(grant)).isTrue();
                assertThat(looker.inspect(key)).isEqualTo(KeyState.free(OptionalInt.of(0)));
                assertThat(nodes(key)).isEmpty();
                Grant next = holder.tryAcquire(request(key, LockMode.EXCLUSIVE)).grant().orElseThrow();
                assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
                holder.release(next);
            }
        }
    }

    @Test
    void readersAreOneHolderEachAndAWaitingWriterAndTheReaderBehindItAreWaiters() throws Exception {
        ZookeeperLockBackend a = backend();
        ZookeeperLockBackend b = backend();
        String key = String.format(KEY_FORMS[8], UUID.randomUUID());
        Grant r1 = a.tryAcquire(request(key, LockMode.SHARED)).grant().orElseThrow();
        Grant r2 = b.tryAcquire(request(key, LockMode.SHARED)).grant().orElseThrow();
        Grant r3 = a.tryAcquire(request(key, LockMode.SHARED)).grant().orElseThrow();

        KeyState readers = b.inspect(key);
        assertThat(readers.mode()).isEqualTo(LockMode.SHARED);
        assertThat(readers.holders()).hasSize(3);
        assertSessionHolder(readers.holders().get(0), r1);
        assertSessionHolder(readers.holders().get(1), r2);
        assertSessionHolder(readers.holders().get(2), r3);
        assertThat(readers.waiters()).hasValue(0);

        Future<Optional<Grant>> writer = pool.submit(() -> b.acquire(request(key, LockMode.EXCLUSIVE),
                Duration.ofSeconds(30)));
        await(Duration.ofSeconds(10), () -> nodes(key).size() == 4, "the writer queued");
        Future<Optional<Grant>> lateReader = pool.submit(() -> a.acquire(request(key, LockMode.SHARED),
                Duration.ofSeconds(30)));
        await(Duration.ofSeconds(10), () -> nodes(key).size() == 5, "the late reader queued");

        KeyState queued = a.inspect(key);
        assertThat(queued.mode()).isEqualTo(LockMode.SHARED);
        assertThat(queued.holders()).extracting(KeyState.Holder::owner)
                .containsExactly(r1.owner(), r2.owner(), r3.owner());
        assertThat(queued.waiters()).as("the writer and the reader behind it").hasValue(2);

        a.release(r1);
        b.release(r2);
        a.release(r3);
        Grant w = writer.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState writing = a.inspect(key);
        assertThat(writing.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertSessionHolder(writing.holders().get(0), w);
        assertThat(writing.waiters()).hasValue(1);

        b.release(w);
        Grant late = lateReader.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState last = b.inspect(key);
        assertThat(last.mode()).isEqualTo(LockMode.SHARED);
        assertSessionHolder(last.holders().get(0), late);
        assertThat(last.waiters()).hasValue(0);
        a.release(late);
        assertThat(a.inspect(key).held()).isFalse();
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void anExplicitLeaseThatRanOutIsFree() throws Exception {
        ZookeeperLockBackend backend = backend();
        String key = String.format(KEY_FORMS[2], UUID.randomUUID());
        Grant grant = backend.tryAcquire(new LockRequest(key, owner(), Duration.ofMillis(500), false))
                .grant().orElseThrow();
        KeyState state = backend.inspect(key);
        if (state.held()) { // unless the machine was slow enough for the lease to run out already
            assertSessionHolder(state.holders().get(0), grant);
        }
        await(Duration.ofSeconds(10), () -> !backend.inspect(key).held(), "the explicit lease to end");
        assertThat(backend.inspect(key)).isEqualTo(KeyState.free(OptionalInt.of(0)));
        assertThat(nodes(key)).isEmpty();
    }

    @Test
    void aLingeringHoldReportsTheLingerLeftAlsoAfterItsClientClosed() throws Exception {
        Duration linger = Duration.ofSeconds(4);
        ZookeeperLockBackend holder = backend();
        ZookeeperLockBackend looker = backend();
        String key = String.format(KEY_FORMS[10], UUID.randomUUID());
        Grant grant = holder.tryAcquire(request(key, LockMode.EXCLUSIVE)).grant().orElseThrow();
        long lingerFrom = System.nanoTime();
        assertThat(holder.linger(grant, linger)).isTrue();

        KeyState alive = looker.inspect(key);
        assertThat(alive.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(alive.holders()).hasSize(1);
        assertLingering(alive.holders().get(0), grant, linger);

        holder.close(); // its node goes with its session; the marker keeps the key
        await(Duration.ofSeconds(10), () -> nodes(key).size() == 1, "the holder's node to go with its session");
        Future<Optional<Grant>> waiter = pool.submit(() -> looker.acquire(request(key, LockMode.EXCLUSIVE),
                Duration.ofSeconds(30)));
        await(Duration.ofSeconds(10), () -> nodes(key).size() == 2 || waiter.isDone(), "the waiter to queue");
        KeyState orphaned = looker.inspect(key);
        // Unless the machine was slow enough for the linger to be over already (a wide margin, not a bound):
        if (System.nanoTime() - lingerFrom < linger.minusSeconds(1).toNanos()) {
            assertThat(orphaned.mode()).as("the marker alone holds the key").isEqualTo(LockMode.EXCLUSIVE);
            assertThat(orphaned.holders()).hasSize(1);
            assertLingering(orphaned.holders().get(0), grant, linger);
            assertThat(orphaned.waiters()).as("the first queued node waits for the marker").hasValue(1);
        }
        Grant next = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState after = looker.inspect(key);
        assertThat(after.holders()).hasSize(1);
        assertSessionHolder(after.holders().get(0), next);
        looker.release(next);
        assertThat(looker.inspect(key).held()).isFalse();
        await(Duration.ofSeconds(5), () -> nodes(key).isEmpty(), "nothing left under the key's parent");
    }

    private static void assertLingering(KeyState.Holder holder, Grant grant, Duration linger) {
        assertThat(holder.owner()).isEqualTo(grant.owner());
        assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
        assertThat(holder.remaining()).isPresent();
        // The marker's linger is rounded up by a millisecond or two.
        assertThat(holder.remaining().get()).isPositive().isLessThanOrEqualTo(linger.plusMillis(5));
    }
}
