package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ClientWatches;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The session is the lease: suspension, reconnection and expiry against a real server,
 * with expiry injected into the client ({@link KillSession}) as a GC pause or a partition
 * longer than the session timeout would cause it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperSessionTest {

    private final List<AutoCloseable> resources = new ArrayList<>();
    private TestingServer server;

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theSessionTimeoutIsWhatTheServerGrantedNotWhatWasAskedFor() throws Exception {
        startServer(100); // grants 200 ms .. 2 s
        ZookeeperLockBackend backend = track(ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(30)).build());
        Grant grant = backend.tryAcquire(new LockRequest("session:granted", "owner", Duration.ofSeconds(30), true))
                .grant().orElseThrow();
        assertThat(backend.sessionTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(backend.release(grant)).isTrue();
    }

    @Test
    void aRenewedHoldIsValidForAtMostTwoThirdsOfTheGrantedSessionAndStaysValidThroughRenewals() throws Exception {
        startServer(100); // grants at most 2 s, whatever is asked for
        ZookeeperLockBackend backend = track(ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(30)).build());
        backend.ping(); // connected: the session timeout is negotiated
        assertThat(backend.validity(Duration.ofSeconds(30))).isLessThanOrEqualTo(Duration.ofMillis(1334));
        assertThat(backend.validity(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(500));
        LockClient client = track(LockClient.builder(backend).defaultLease(Duration.ofSeconds(30)).build());
        try (LockLease lease = client.acquire(key("validity"), Duration.ofSeconds(5))) {
            assertThat(lease.remaining()).as("bounded by the 2 s session, not the 30 s lease")
                    .isLessThanOrEqualTo(Duration.ofMillis(1334));
            // The watchdog renews every third of the bound, so the hold outlives several bounds.
            Thread.sleep(4_000);
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofMillis(1334));
        }
    }

    private void startServer(int tickMillis) throws Exception {
        server = ZookeeperTestServers.startServer(tickMillis);
    }

    private CuratorFramework curator(Duration session) throws InterruptedException {
        return track(ZookeeperTestServers.curator(server.getConnectString(), session));
    }

    private ZookeeperLockBackend backend(CuratorFramework curator) {
        return track(ZookeeperLockBackend.builder().client(curator).operationTimeout(Duration.ofSeconds(3)).build());
    }

    private LockClient client(CuratorFramework curator, Duration lease) {
        return track(LockClient.builder(backend(curator)).defaultLease(lease).build());
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private static String key(String name) {
        return "session:" + name + ":" + UUID.randomUUID();
    }

    @Test
    void sessionExpiryWhileHoldingFiresOnLostAndFreesTheLock() throws Exception {
        startServer(500);
        CuratorFramework holder = curator(Duration.ofSeconds(3));
        LockClient a = client(holder, Duration.ofSeconds(3));
        LockClient b = client(curator(Duration.ofSeconds(3)), Duration.ofSeconds(3));
        String key = key("holding");
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        AtomicInteger fired = new AtomicInteger();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5)).onLost(e -> {
            fired.incrementAndGet();
            lost.set(e);
        });

        KillSession.kill(holder.getZookeeperClient().getZooKeeper());

        await(Duration.ofSeconds(10), () -> lost.get() != null, "onLost after the session expired");
        // The session guard (LOST) or the watchdog (node of a dead session) tells first; both mean "gone".
        assertThat(lost.get().reason()).isIn(LostReason.SESSION_LOST, LostReason.RENEWAL_REJECTED);
        assertThat(lease.isValid()).isFalse();
        try (LockLease next = b.acquire(key, Duration.ofSeconds(20))) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
        assertThat(fired.get()).isEqualTo(1);
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void sessionExpiryWhileWaitingIsNeverReportedAsGranted() throws Exception {
        startServer(500);
        LockClient a = client(curator(Duration.ofSeconds(3)), Duration.ofSeconds(3));
        CuratorFramework waiterSession = curator(Duration.ofSeconds(3));
        LockClient b = client(waiterSession, Duration.ofSeconds(3));
        CuratorFramework admin = curator(Duration.ofSeconds(10));
        String key = key("waiting");
        String parent = new dev.mortise.lock.zookeeper.internal.LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT)
                .parent(key);
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<LockLease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, Duration.ofSeconds(60)));
        await(Duration.ofSeconds(10), () -> childCount(admin, parent) == 2, "the waiter's node to be queued");
        // The server having the node is not enough: expired while its create is unanswered, the waiter's
        // create is made again in the new session (Curator's protected mode), whose node may win fairly.
        // Its watch on the holder's node says the waiter knows its node and waits behind it.
        await(Duration.ofSeconds(10), () -> watchesUnder(waiterSession, parent), "the waiter to watch the node ahead");

        // Expire the waiter's session and free the lock at once: the waiter's old node is now
        // first in the queue until the server reaps it, and must still not count as a grant.
        KillSession.kill(waiterSession.getZookeeperClient().getZooKeeper());
        held.close();

        assertThatThrownBy(() -> waiter.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockBackendException.class);
        await(Duration.ofSeconds(10), () -> childCount(admin, parent) == 0, "the waiter's node to be removed");
        try (LockLease lease = b.acquire(key, Duration.ofSeconds(10))) {
            assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aLostOfTheEndedSessionDeliveredLateLeavesTheHoldsOfTheNewSessionAlone() throws Exception {
        startServer(500);
        HeldBackState lateLost = new HeldBackState(ConnectionState.LOST);
        CuratorFramework session = track(CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(3_000).connectionTimeoutMs(3_000).retryPolicy(new RetryOneTime(100))
                .connectionStateListenerManagerFactory(lateLost).build());
        session.start();
        assertThat(session.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
        LockClient client = client(session, Duration.ofSeconds(3));
        AtomicInteger oldLost = new AtomicInteger();
        LockLease before = client.acquire(key("old-session"), Duration.ofSeconds(5)).onLost(e -> oldLost.incrementAndGet());
        long oldSession = session.getZookeeperClient().getZooKeeper().getSessionId();

        KillSession.kill(session.getZookeeperClient().getZooKeeper());
        await(Duration.ofSeconds(10), lateLost::posted, "Curator to post LOST");
        await(Duration.ofSeconds(20), () -> liveSession(session) != 0 && liveSession(session) != oldSession,
                "a new session");
        AtomicReference<LockLostEvent> newLost = new AtomicReference<>();
        LockLease after = client.acquire(key("new-session"), Duration.ofSeconds(10)).onLost(newLost::set);
        lateLost.release(); // LOST of the old session arrives now, after the new session's grant

        await(Duration.ofSeconds(10), () -> oldLost.get() == 1, "the old session's hold to be lost");
        assertThat(before.isValid()).isFalse();
        assertThat(after.isValid()).as("granted in the live session").isTrue();
        assertThat(newLost.get()).isNull();
        after.close(); // released, not lost: no LockLostException
        assertThat(newLost.get()).isNull();
    }

    /** Whether {@code session}'s client holds a data watch on a node under {@code parent}. */
    private static boolean watchesUnder(CuratorFramework session, String parent) {
        try {
            return ClientWatches.dataWatches(session.getZookeeperClient().getZooKeeper()).stream()
                    .anyMatch(path -> path.startsWith(parent + "/"));
        } catch (Exception e) {
            return false;
        }
    }

    /** The client's session id if it is connected now, else 0. */
    private static long liveSession(CuratorFramework session) {
        try {
            org.apache.zookeeper.ZooKeeper zk = session.getZookeeperClient().getZooKeeper();
            return zk.getState().isConnected() ? zk.getSessionId() : 0;
        } catch (Exception e) {
            return 0;
        }
    }

    @Test
    void suspensionInvalidatesLeasesAtOnceAndReconnectionRestoresThem() throws Exception {
        startServer(1000);
        // A lease well inside the session, and long enough to outlast a slow restart on a busy machine.
        LockClient a = client(curator(Duration.ofSeconds(20)), Duration.ofSeconds(15));
        AtomicInteger lost = new AtomicInteger();
        LockLease lease = a.acquire(key("suspended"), Duration.ofSeconds(5)).onLost(e -> lost.incrementAndGet());
        assertThat(lease.isValid()).isTrue();

        server.stop();
        await(Duration.ofSeconds(10), () -> !lease.isValid(), "the lease to turn invalid when the connection is suspended");
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LockLostException.class).hasMessageContaining("suspended");
        server.restart();

        await(Duration.ofSeconds(20), lease::isValid, "the lease to be valid again after reconnecting");
        assertThat(lost.get()).isZero();
        lease.close();
    }

    @Test
    void aLeaseThatRanOutWhileSuspendedIsNotResurrectedAndFreesTheLock() throws Exception {
        startServer(1000);
        LockClient a = client(curator(Duration.ofSeconds(15)), Duration.ofSeconds(2));
        LockClient b = client(curator(Duration.ofSeconds(15)), Duration.ofSeconds(2));
        String key = key("ran-out");
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5)).onLost(lost::set);

        server.stop();
        await(Duration.ofSeconds(10), () -> lost.get() != null, "the lease to run out while the server is down");
        assertThat(lost.get().reason()).isEqualTo(LostReason.EXPIRED);
        server.restart();

        // The holder has not closed its lease, yet its node must not block the next owner.
        try (LockLease next = b.acquire(key, Duration.ofSeconds(20))) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
            assertThat(lease.isValid()).isFalse();
        }
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void aRenewedHoldThatNobodyRenewsEndsWithItsLease() throws Exception {
        startServer(500);
        ZookeeperLockBackend holder = backend(curator(Duration.ofSeconds(10)));
        ZookeeperLockBackend other = backend(curator(Duration.ofSeconds(10)));
        RecordingGrantListener listener = new RecordingGrantListener();
        holder.addGrantListener(listener);
        String key = key("unrenewed");
        // As if the watchdog had stalled: the session is fine, but the lease is not confirmed in time.
        Grant grant = holder.tryAcquire(new LockRequest(key, "holder", Duration.ofSeconds(1), true)).grant().orElseThrow();

        await(Duration.ofSeconds(10), () -> listener.lost.contains(grant), "the unconfirmed hold to be reported lost");
        Grant next = other.acquire(new LockRequest(key, "other", Duration.ofSeconds(60), true), Duration.ofSeconds(10))
                .orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
        assertThat(holder.release(grant)).as("the hold was gone already").isFalse();
        assertThat(other.release(next)).isTrue();
    }

    @Test
    void backendReportsEveryHoldSuspendedRestoredThenLost() throws Exception {
        startServer(1000);
        CuratorFramework curator = curator(Duration.ofSeconds(10));
        ZookeeperLockBackend backend = backend(curator);
        RecordingGrantListener listener = new RecordingGrantListener();
        backend.addGrantListener(listener);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            grants.add(backend.tryAcquire(new LockRequest(key("spi" + i), "owner-" + i, Duration.ofSeconds(60), true))
                    .grant().orElseThrow());
        }

        server.stop();
        await(Duration.ofSeconds(10), () -> listener.suspended.size() == 3, "every hold reported suspended");
        server.restart();
        await(Duration.ofSeconds(20), () -> listener.restored.size() == 3, "every hold reported restored");
        assertThat(listener.restored).containsExactlyInAnyOrderElementsOf(grants);
        assertThat(listener.lost).isEmpty();
        assertThat(backend.renewAll(grants, Duration.ofSeconds(10)).gone()).as("holds gone after reconnecting").isEmpty();

        KillSession.kill(curator.getZookeeperClient().getZooKeeper());
        await(Duration.ofSeconds(10), () -> listener.lost.size() == 3, "every hold reported lost");
        assertThat(listener.lost).containsExactlyInAnyOrderElementsOf(grants);
        // Curator opens the new session by itself; ci32 (session 17) saw it not connected 10 s after the kill,
        // once, under load, and 9 runs here beside busy loops did not repeat it: the wait is 30 s, and a client
        // that never reconnects still fails here.
        await(Duration.ofSeconds(30), curator.getZookeeperClient()::isConnected, "a new session");
        assertThat(backend.renewAll(grants, Duration.ofSeconds(10)).gone()).as("holds of the dead session")
                .containsExactlyInAnyOrderElementsOf(grants);
    }

    private static int childCount(CuratorFramework admin, String parent) {
        try {
            return ZookeeperTestServers.children(admin, parent).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
