package dev.mortise.lock.spi;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The defaults of {@link LockBackend#acquireAsync}: polling on a backend without shared mode, its
 * blocking {@code acquire} on its pool (a thread per server wait) on one with it. Both are granted when the holder
 * releases, answer empty when the wait runs out, stop when cancelled, and release a grant that
 * raced the cancel. Against a {@link LocalLockServer} reached only through the defaults.
 */
class AsyncWaitDefaultsTest {

    private final LocalLockServer server = new LocalLockServer("async-defaults");
    private final LocalLockBackend local = new LocalLockBackend(server);
    private final AtomicInteger attempts = new AtomicInteger();
    /** Requests inside the local backend right now: one may still grant after a cancel won (then released). */
    private final AtomicInteger inFlight = new AtomicInteger();

    /** The local backend without its native async wait, with or without shared mode. */
    private LockBackend viaDefault(boolean shared) {
        return new LockBackend() {
            @Override public String name() { return "defaults"; }
            @Override public BackendGuarantees guarantees() { return local.guarantees(); }
            @Override public boolean supportsSharedMode() { return shared; }
            @Override public Attempt tryAcquire(LockRequest request) {
                attempts.incrementAndGet();
                inFlight.incrementAndGet();
                try {
                    return local.tryAcquire(request);
                } finally {
                    inFlight.decrementAndGet();
                }
            }
            @Override public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
                inFlight.incrementAndGet();
                try {
                    return local.acquire(request, wait);
                } finally {
                    inFlight.decrementAndGet();
                }
            }
            @Override public Optional<Duration> renew(Grant grant, Duration lease) { return local.renew(grant, lease); }
            @Override public boolean release(Grant grant) { return local.release(grant); }
            @Override public void ping() { }
            @Override public void close() { }
        };
    }

    private static LockRequest request(String key, String owner) {
        return new LockRequest(key, owner, Duration.ofSeconds(30), false, LockMode.EXCLUSIVE, null);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void grantedOnReleaseEmptyWhenTheWaitRunsOut(boolean shared) throws Exception {
        LockBackend backend = viaDefault(shared);
        Grant held = local.tryAcquire(request("k", "holder")).grant().orElseThrow();
        assertThat(backend.acquireAsync(request("k", "late"), Duration.ofMillis(200)).get(30, TimeUnit.SECONDS)).isEmpty();
        CompletableFuture<Optional<Grant>> waiting = backend.acquireAsync(request("k", "next"), Duration.ofSeconds(30));
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        local.release(held);
        Grant granted = waiting.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        local.release(granted);
        assertThat(server.records("k")).isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aCancelledWaitStopsAndLeavesNothing(boolean shared) throws Exception {
        LockBackend backend = viaDefault(shared);
        Grant held = local.tryAcquire(request("k", "holder")).grant().orElseThrow();
        CompletableFuture<Optional<Grant>> waiting = backend.acquireAsync(request("k", "w"), Duration.ofSeconds(30));
        Thread.sleep(100);
        assertThat(waiting.cancel(true)).isTrue();
        awaitZeroWaiters("k");
        int after = attempts.get();
        Thread.sleep(200);
        assertThat(attempts.get()).as("no attempt after the cancel").isLessThanOrEqualTo(after + 1);
        local.release(held);
        assertThat(server.isHeld("k")).isFalse();
    }

    @Test
    void aGrantRacingTheCancelIsReleased() throws Exception {
        for (boolean shared : new boolean[] {false, true}) {
            LockBackend backend = viaDefault(shared);
            for (int i = 0; i < 300; i++) {
                CompletableFuture<Optional<Grant>> asked = backend.acquireAsync(request("r", "o" + i), Duration.ofSeconds(5));
                if (!asked.cancel(true)) {
                    asked.get().ifPresent(local::release);
                }
                // An attempt in flight when the cancel won may still be granted; it is then released. So wait
                // until no request is inside the backend and the key is free, then once more after a moment (an
                // attempt that had passed its "answer done?" check just before the cancel enters a little late).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                for (int look = 0; look < 2; look++) {
                    Thread.sleep(look);
                    while ((inFlight.get() > 0 || server.isHeld("r")) && System.nanoTime() - deadline < 0) {
                        Thread.sleep(1);
                    }
                }
                assertThat(server.isHeld("r")).as("round " + i + " left the key held").isFalse();
            }
        }
    }

    private void awaitWaiting(String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.records(key) < 2 && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertThat(server.records(key)).as("the holder and a request waiting at the server for " + key).isEqualTo(2);
    }

    private void awaitZeroWaiters(String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.records(key) > 1 && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertThat(server.records(key)).as("only the holder's record").isEqualTo(1);
    }

    /**
     * A request for a free key is never held up behind other requests' server waits: with more
     * blocking waits under way than any fixed pool would have threads, it is still granted.
     */
    @Test
    void aFreeKeyIsGrantedWhileManyOtherKeysWaitOnTheBlockingDefault() throws Exception {
        LockBackend backend = viaDefault(true);
        int busy = 40;
        java.util.List<Grant> holders = new java.util.ArrayList<>();
        java.util.List<CompletableFuture<Optional<Grant>>> waits = new java.util.ArrayList<>();
        for (int i = 0; i < busy; i++) {
            holders.add(local.tryAcquire(request("busy-" + i, "holder")).grant().orElseThrow());
            waits.add(backend.acquireAsync(request("busy-" + i, "w"), Duration.ofSeconds(60)));
        }
        for (int i = 0; i < busy; i++) {
            awaitWaiting("busy-" + i);
        }
        Grant free = backend.acquireAsync(request("free", "f"), Duration.ofSeconds(60)).get(30, TimeUnit.SECONDS)
                .orElseThrow();
        local.release(free);
        waits.forEach(w -> w.cancel(true));
        for (int i = 0; i < busy; i++) {
            awaitZeroWaiters("busy-" + i);
            local.release(holders.get(i));
        }
    }
}
