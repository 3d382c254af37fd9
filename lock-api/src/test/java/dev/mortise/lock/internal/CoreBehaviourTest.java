package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Core details the contract suite cannot see from outside: validity arithmetic and local bookkeeping. */
class CoreBehaviourTest {

    @Test
    void usableLeaseSubtractsDriftFactorAndAllowance() {
        ClientSettings settings = new ClientSettings(Duration.ofSeconds(30), 0.01, Duration.ofMillis(2), 512, List.of());
        assertThat(settings.usableNanos(Duration.ofSeconds(10)))
                .isEqualTo(Duration.ofSeconds(10).minusMillis(100).minusMillis(2).toNanos());
    }

    @Test
    void validityIsCountedFromTheRequestAndShrunkByDrift() {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).clockDrift(0.1, Duration.ZERO).build();
             LockLease lease = client.acquire(LockSpec.of("k").lease(Duration.ofSeconds(10)))) {
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(9)).isGreaterThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void localGatesAreRemovedWhenNobodyHoldsOrWaits() throws Exception {
        DefaultLockClient client = (DefaultLockClient) LockClient.builder(LocalLockBackend.create()).build();
        try (client) {
            LockLease held = client.acquire("k", Duration.ofSeconds(1));
            CompletableFuture<Optional<LockLease>> waiter =
                    CompletableFuture.supplyAsync(() -> client.tryAcquire("k", Duration.ofMillis(200)));
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(CompletableFuture.supplyAsync(() -> client.tryAcquire("k")).get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(client.gatesInUse()).isEqualTo(1);
            held.close();
            assertThat(client.gatesInUse()).isZero();
            client.tryAcquire("k").orElseThrow().close();
            assertThat(client.gatesInUse()).isZero();
        }
    }

    @Test
    void expiredHoldIsReleasedOnTheServerOnceWithoutWaitingForClose() throws Exception {
        AtomicInteger releases = new AtomicInteger();
        LocalLockBackend local = LocalLockBackend.create();
        LockBackend counting = new LockBackend() {
            public String name() { return "counting"; }
            public BackendGuarantees guarantees() { return local.guarantees(); }
            public Attempt tryAcquire(LockRequest request) { return local.tryAcquire(request); }
            public java.util.Optional<Duration> renew(Grant grant, Duration lease) { return local.renew(grant, lease); }
            public boolean release(Grant grant) { releases.incrementAndGet(); return local.release(grant); }
            public dev.mortise.lock.spi.KeyState inspect(String key) { return local.inspect(key); }
            public void ping() { }
            public void close() { }
        };
        try (LockClient client = LockClient.builder(counting).build()) {
            LockLease lease = client.acquire(LockSpec.of("k").lease(Duration.ofMillis(100)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (releases.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(releases.get()).as("released in the background after expiry").isEqualTo(1);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
            assertThat(releases.get()).as("closing does not release again").isEqualTo(1);
        }
    }

    /** A backend that reports a session event for a grant before it returns the grant. */
    private static LockBackend reportingBeforeReturn(LocalLockBackend local, AtomicInteger releases,
                                                     java.util.function.BiConsumer<GrantListener, Grant> report) {
        return new LockBackend() {
            private GrantListener listener;
            public String name() { return "early-events"; }
            public BackendGuarantees guarantees() { return local.guarantees(); }
            public Attempt tryAcquire(LockRequest request) {
                Attempt attempt = local.tryAcquire(request);
                attempt.grant().ifPresent(grant -> report.accept(listener, grant));
                return attempt;
            }
            public java.util.Optional<Duration> renew(Grant grant, Duration lease) { return local.renew(grant, lease); }
            public boolean release(Grant grant) { releases.incrementAndGet(); return local.release(grant); }
            public void addGrantListener(GrantListener l) { listener = l; }
            public dev.mortise.lock.spi.KeyState inspect(String key) { return local.inspect(key); }
            public void ping() { }
            public void close() { }
        };
    }

    @Test
    void sessionLostWhileTheGrantIsOnItsWayBackIsNotHandedOut() {
        AtomicInteger releases = new AtomicInteger();
        LocalLockBackend local = LocalLockBackend.create();
        LockBackend backend = reportingBeforeReturn(local, releases,
                (listener, grant) -> listener.lost(grant, new IllegalStateException("session expired")));
        DefaultLockClient client = (DefaultLockClient) LockClient.builder(backend).build();
        try (client) {
            assertThatThrownBy(() -> client.tryAcquire("k"))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("'k'").hasMessageContaining("early-events")
                    .hasMessageContaining("session it was bound to ended");
            assertThat(releases.get()).as("given up on the server").isEqualTo(1);
            assertThat(local.server().isHeld("k")).isFalse();
            assertThat(client.heldLocks()).isEmpty();
            assertThat(client.gatesInUse()).isZero();
        }
    }

    @Test
    void suspensionWhileTheGrantIsOnItsWayBackMakesTheLeaseInvalidUntilRestored() {
        LocalLockBackend local = LocalLockBackend.create();
        GrantListener[] seen = new GrantListener[1];
        Grant[] granted = new Grant[1];
        LockBackend backend = reportingBeforeReturn(local, new AtomicInteger(), (listener, grant) -> {
            seen[0] = listener;
            granted[0] = grant;
            listener.suspended(grant);
        });
        try (LockClient client = LockClient.builder(backend).build();
             LockLease lease = client.tryAcquire("k").orElseThrow()) {
            assertThat(lease.isValid()).as("suspended before it was returned").isFalse();
            seen[0].restored(granted[0]);
            assertThat(lease.isValid()).isTrue();
        }
    }

    /**
     * The expiry timer keeps one check at the earliest deadline it knows of: a hold armed after a
     * longer one, and a hold whose deadline {@code extend} lowered, must each move that check
     * earlier and be told lost near their own deadline, long before the longest lease ends.
     */
    @Test
    void eachHoldIsToldExpiredAtItsOwnDeadlineWhateverTheOrderItWasArmedIn() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            long start = System.nanoTime();
            LockLease longest = client.acquire(LockSpec.of("long").lease(Duration.ofSeconds(20)));
            LockLease lowered = client.acquire(LockSpec.of("lowered").lease(Duration.ofSeconds(20)));
            LockLease shortest = client.acquire(LockSpec.of("short").lease(Duration.ofMillis(300)));
            CompletableFuture<Long> shortLost = new CompletableFuture<>();
            CompletableFuture<Long> loweredLost = new CompletableFuture<>();
            shortest.onLost(event -> shortLost.complete(System.nanoTime() - start));
            lowered.onLost(event -> loweredLost.complete(System.nanoTime() - start));
            lowered.extend(Duration.ofMillis(300));
            // Wide slack for a loaded machine: the point is "at their own deadline", not "at the longest one".
            assertThat(shortLost.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(loweredLost.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(longest.isValid()).isTrue();
            longest.close();
            assertThatThrownBy(shortest::close).isInstanceOf(LockLostException.class);
            assertThatThrownBy(lowered::close).isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void lossFoundByTheWatchdogIsToldOffTheWatchdogThread() throws Exception {
        LocalLockBackend local = LocalLockBackend.create();
        try (LockClient client = LockClient.builder(local).defaultLease(Duration.ofMillis(300)).build()) {
            LockLease lease = client.acquire("k", Duration.ofSeconds(1));
            CompletableFuture<String> listenerThread = new CompletableFuture<>();
            lease.onLost(event -> listenerThread.complete(Thread.currentThread().getName()));
            local.server().forget("k");
            assertThat(listenerThread.get(10, TimeUnit.SECONDS)).startsWith("mortise-onlost-");
            assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void aBackendThatBoundsValidityShortensLeasesAndTheWatchdogPeriod() throws Exception {
        LocalLockBackend local = LocalLockBackend.create();
        AtomicInteger renewals = new AtomicInteger();
        LockBackend sessionBound = new LockBackend() {
            public String name() { return "session-bound"; }
            public BackendGuarantees guarantees() { return local.guarantees(); }
            public Attempt tryAcquire(LockRequest request) { return local.tryAcquire(request); }
            public java.util.Optional<Duration> renew(Grant grant, Duration lease) { renewals.incrementAndGet(); return local.renew(grant, lease); }
            public boolean release(Grant grant) { return local.release(grant); }
            public Duration validity(Duration lease) { return lease.dividedBy(10); }
            public dev.mortise.lock.spi.KeyState inspect(String key) { return local.inspect(key); }
            public void ping() { }
            public void close() { }
        };
        try (LockClient client = LockClient.builder(sessionBound).defaultLease(Duration.ofSeconds(30)).build();
             LockLease explicit = client.acquire(LockSpec.of("e").lease(Duration.ofSeconds(20)));
             LockLease renewed = client.acquire("r", Duration.ofSeconds(1))) {
            assertThat(explicit.remaining()).as("an explicit lease is worth the backend's validity too")
                    .isLessThanOrEqualTo(Duration.ofSeconds(2)).isGreaterThan(Duration.ZERO);
            explicit.close();
            assertThat(renewed.remaining()).as("a renewed hold is worth the backend's validity")
                    .isLessThanOrEqualTo(Duration.ofSeconds(3));
            // Renewed every third of the 3 s validity, not of the 30 s lease: the hold stays valid.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (renewals.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(renewals.get()).isGreaterThanOrEqualTo(3);
            assertThat(renewed.isValid()).isTrue();
        }
    }

    @Test
    void closingTheClientEndsOpenLeases() {
        LocalLockBackend backend = LocalLockBackend.create();
        LockClient client = LockClient.builder(backend).build();
        LockLease lease = client.acquire("k", Duration.ofSeconds(1));
        client.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(backend.server().isHeld("k")).isFalse();
    }
    @Test
    void closeLingeringLeavesTheHoldOnTheServerUntilTheLingerEnds() throws Exception {
        dev.mortise.lock.local.LocalLockServer server = new dev.mortise.lock.local.LocalLockServer();
        try (LockClient a = LockClient.builder(new LocalLockBackend(server)).build();
             LockClient b = LockClient.builder(new LocalLockBackend(server)).build()) {
            LockLease lease = a.acquire("linger", Duration.ofSeconds(1));
            long closedAt = System.nanoTime();
            lease.closeLingering(Duration.ofMillis(700));
            assertThat(lease.isValid()).isFalse();
            assertThat(a.heldLocks()).as("no longer held or renewed by the client").isEmpty();
            Optional<LockLease> early = b.tryAcquire("linger");
            if (System.nanoTime() - closedAt < TimeUnit.MILLISECONDS.toNanos(650)) {
                assertThat(early).as("still on the server during the linger").isEmpty();
            }
            early.ifPresent(LockLease::close);
            assertThat(b.tryAcquire("linger", Duration.ofSeconds(5))).as("free once the linger ended")
                    .hasValueSatisfying(LockLease::close);
        }
    }
    /** Issue 15, item 7: a second first acquisition by the same explicit owner nests instead of deadlocking. */
    @Test
    void concurrentFirstAcquisitionsByOneExplicitOwnerNest() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        backend.acquireGate = new java.util.concurrent.CountDownLatch(1);
        try (LockClient client = LockClient.builder(backend).build()) {
            LockSpec spec = LockSpec.of("parent-child").owner("task-7").waitFor(Duration.ofSeconds(10));
            CompletableFuture<LockLease> parent = CompletableFuture.supplyAsync(() -> client.acquire(spec));
            assertThat(backend.acquireReachedServer.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<LockLease> child = CompletableFuture.supplyAsync(() -> client.acquire(spec));
            Thread.sleep(100);
            backend.acquireGate.countDown();
            LockLease outer = parent.get(10, TimeUnit.SECONDS);
            LockLease inner = child.get(10, TimeUnit.SECONDS);
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            assertThat(outer.holdCount()).isEqualTo(2);
            inner.close();
            outer.close();
            assertThat(backend.local.server().isHeld("parent-child")).isFalse();
        }
    }
    /** A caller queued behind another caller's server request that hangs is told so, not that another owner holds it. */
    @Test
    void aTimeoutInTheClientsOwnQueueSaysSo() throws Exception {
        ScriptedBackend backend = new ScriptedBackend();
        backend.acquireGate = new java.util.concurrent.CountDownLatch(1);
        try (LockClient client = LockClient.builder(backend).build()) {
            CompletableFuture<LockLease> first = CompletableFuture.supplyAsync(() -> client.acquire("hung",
                    Duration.ofSeconds(10)));
            assertThat(backend.acquireReachedServer.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> CompletableFuture.supplyAsync(() -> client.acquire("hung",
                    Duration.ofMillis(200))).join())
                    .hasCauseInstanceOf(dev.mortise.lock.LockTimeoutException.class)
                    .hasMessageContaining("still waiting for the server").hasMessageContaining("'hung'");
            backend.acquireGate.countDown();
            first.get(10, TimeUnit.SECONDS).close();
        }
    }
}
