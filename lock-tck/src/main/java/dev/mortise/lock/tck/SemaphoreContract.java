package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The semaphore contract ({@link LockClient#semaphore}, {@link LockSemaphore}) against a backend's
 * real server, run by every {@link LockBackendContractTest} as its nested {@code Semaphore} class,
 * with that test's clients {@code a} and {@code b} and its hooks ({@code breakHold},
 * {@code residueOnServer} on the slot keys {@code name + "#permit-" + i}): never more valid
 * holders than permits across clients, permits of a dead holder freed when its leases end, n
 * permits all or nothing, nothing left behind by a timeout or an interrupt, one loss of the whole
 * when a permit's hold is broken, and the raise/lower semantics of the slot model. On a backend
 * with native semaphores ({@link LockSemaphore#isNative()}, guarded per test) also: one fencing
 * counter per name, the stored count (a mismatch is refused, {@code setPermits} raise wakes a
 * waiter, lower lets holders finish), and arrival order where the test declares it
 * ({@link LockBackendContractTest#fairPermits()}). Every wait is "eventually, within the lease and
 * generous slack"; nothing here measures speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SemaphoreContract {

    /** Slack on top of a lease for "freed eventually": wide, CI machines are loaded. */
    static final Duration SLACK = Duration.ofSeconds(10);

    private final LockBackendContractTest test;

    /** @param test the enclosing contract test, whose fixture ({@code a}, {@code b}) is set up per test */
    protected SemaphoreContract(LockBackendContractTest test) {
        this.test = test;
    }

    private int residue(LockSemaphore semaphore, int slots) throws Exception {
        if (semaphore.isNative()) {
            return test.residueOnServer(semaphore.permitsKey());
        }
        int records = 0;
        for (int i = 0; i < slots; i++) {
            records += test.residueOnServer(semaphore.slotKey(i));
        }
        return records;
    }

    // ---- at most `permits` valid holders ---------------------------------------------------------

    /**
     * Six threads on two clients (three each, as two processes) take one or two permits of a
     * two-permit semaphore, hold them briefly and release, for a few seconds. An in-JVM count of
     * the permits held by valid holders must never exceed 2, and must reach 2 (else the run could
     * not have failed). A holder leaves the count when it closes or, if its permit is lost first,
     * when it is told of the loss (a lost lease may be granted to another holder once the server
     * drops it, which is after the loser's local validity ended).
     */
    @Test
    void neverMoreValidHoldersThanPermitsAcrossClients() throws Exception {
        String name = test.key("sem");
        int permits = 2;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        List<String> violations = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        long seed = System.nanoTime();
        long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LockClient client = t % 2 == 0 ? test.a : test.b;
            Random random = new Random(seed + t);
            threads.add(new Thread(() -> {
                LockSemaphore semaphore = client.semaphore(name, permits);
                try {
                    while (System.nanoTime() - end < 0) {
                        int n = random.nextInt(5) == 0 ? 2 : 1;
                        Optional<PermitLease> got = semaphore.tryAcquire(n, Duration.ofSeconds(2));
                        if (got.isEmpty()) {
                            continue;
                        }
                        PermitLease permit = got.get();
                        grants.incrementAndGet();
                        AtomicBoolean counted = new AtomicBoolean(true);
                        int now = holding.addAndGet(n);
                        most.accumulateAndGet(now, Math::max);
                        if (now > permits) {
                            violations.add(now + " permits held by valid holders (slots " + permit.slots() + ")");
                        }
                        permit.onLost(e -> {
                            if (counted.compareAndSet(true, false)) {
                                holding.addAndGet(-n);
                            }
                        });
                        Thread.sleep(random.nextInt(15));
                        if (counted.compareAndSet(true, false)) {
                            holding.addAndGet(-n);
                        }
                        try {
                            permit.close();
                        } catch (LockLostException lostMeanwhile) {
                            // left the count when told of the loss
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "semaphore-fuzz-" + t));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(thread.isAlive()).as(thread.getName() + " still running").isFalse();
        }
        assertThat(failures).as("failures (seed " + seed + ")").isEmpty();
        assertThat(violations).as("more valid holders than permits (seed " + seed + ")").isEmpty();
        assertThat(most.get()).as("the valid holders reached the permit count (else the run could not fail)")
                .isEqualTo(permits);
        assertThat(grants.get()).isGreaterThan(6);
        assertThat(residue(test.a.semaphore(name, permits), permits)).as("records left on the slots").isZero();
    }

    // ---- a dead holder's permits ----------------------------------------------------------------

    @Test
    void aHolderThatDiesFreesItsPermitsWhenItsLeasesEnd() throws Exception {
        String name = test.key("sem");
        FaultInjectingBackend faults = new FaultInjectingBackend(test.newBackend());
        LockClient dying = test.track(LockClient.builder(faults).defaultLease(test.watchdogLease()).build());
        PermitLease both = dying.semaphore(name, 2).acquire(2, Duration.ofSeconds(5));
        LockSemaphore survivor = test.a.semaphore(name, 2);
        assertThat(survivor.tryAcquire()).isEmpty();
        // The process dies: nothing reaches the server any more, so its holds stay until their leases run out.
        faults.plan((operation, key) -> FaultInjectingBackend.Injection.fail());
        dying.close();
        assertThat(both.isValid()).isFalse();
        try (PermitLease freed = survivor.acquire(2, test.watchdogLease().plus(SLACK))) {
            assertThat(freed.count()).isEqualTo(2);
            assertThat(freed.isValid()).isTrue();
        }
        assertThat(residue(survivor, 2)).isZero();
    }

    @Test
    void anExplicitLeaseEndsThePermitWithoutARelease() throws Exception {
        String name = test.key("sem");
        PermitLease held = test.a.semaphore(name, 1).acquire(1, Duration.ZERO, test.shortLease());
        try (PermitLease next = test.b.semaphore(name, 1).acquire(test.shortLease().plus(SLACK))) {
            assertThat(held.isValid()).isFalse();
            assertThat(next.fencingTokens().get(0)).isGreaterThan(held.fencingTokens().get(0));
        }
        assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);
    }

    // ---- all or nothing, nothing left behind ----------------------------------------------------

    @Test
    void nPermitsAreAllOrNothingUnderTimeout() throws Exception {
        String name = test.key("sem");
        LockSemaphore semaphore = test.a.semaphore(name, 3);
        PermitLease one = semaphore.acquire(Duration.ofSeconds(5));
        PermitLease two = semaphore.acquire(Duration.ofSeconds(5));
        LockSemaphore other = test.b.semaphore(name, 3);
        assertThat(other.tryAcquire(2, Duration.ofMillis(500))).isEmpty();
        assertThatThrownBy(() -> other.acquire(2, Duration.ofMillis(500))).isInstanceOf(LockTimeoutException.class);
        assertThat(test.b.heldLocks()).as("the timed-out caller holds no slot").isEmpty();
        try (PermitLease third = test.newClient().semaphore(name, 3).tryAcquire().orElseThrow(
                () -> new AssertionError("the one free slot was left taken by the timed-out caller"))) {
            if (!semaphore.isNative()) {
                assertThat(third.slots()).doesNotContainAnyElementsOf(one.slots()).doesNotContainAnyElementsOf(two.slots());
            }
        }
        one.close();
        try (PermitLease both = other.acquire(2, Duration.ofSeconds(5))) {
            assertThat(both.count()).isEqualTo(2);
            if (!semaphore.isNative()) {
                assertThat(both.slots()).hasSize(2).doesNotHaveDuplicates().doesNotContainAnyElementsOf(two.slots());
            }
        }
        two.close();
        assertThat(residue(semaphore, 3)).as("records left on the slots").isZero();
    }

    @Test
    void anInterruptedWaitThrowsRestoresTheFlagAndLeavesNothingBehind() throws Exception {
        String name = test.key("sem");
        PermitLease held = test.a.semaphore(name, 1).acquire(Duration.ofSeconds(5));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            try {
                test.b.semaphore(name, 1).acquire(Duration.ofSeconds(60)).close();
            } catch (Throwable t) {
                failure.set(t);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        waiting.await();
        Thread.sleep(500);
        waiter.interrupt();
        waiter.join(LockBackendContractTest.SLACK.toMillis());
        assertThat(waiter.isAlive()).as("waiter still waiting after interrupt").isFalse();
        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter.get()).isTrue();
        assertThat(test.b.heldLocks()).isEmpty();
        held.close();
        LockSemaphore semaphore = test.newClient().semaphore(name, 1);
        assertThat(residue(semaphore, 1)).as("records left on the slot").isZero();
        assertThat(semaphore.tryAcquire()).as("no orphan blocks the next acquirer").hasValueSatisfying(PermitLease::close);
    }

    // ---- loss ----------------------------------------------------------------------------------

    @Test
    void aBrokenPermitIsOneLossOfTheWhole() throws Exception {
        String name = test.key("sem");
        LockSemaphore semaphore = test.a.semaphore(name, 2);
        PermitLease both = semaphore.acquire(2, Duration.ofSeconds(5));
        AtomicInteger told = new AtomicInteger();
        CountDownLatch lost = new CountDownLatch(1);
        both.onLost(e -> {
            told.incrementAndGet();
            lost.countDown();
        });
        test.breakHold(both.parts().get(both.parts().size() - 1));
        assertThat(lost.await(test.watchdogLease().plus(SLACK).toMillis(), TimeUnit.MILLISECONDS))
                .as("onLost after the permit's hold was broken").isTrue();
        assertThat(both.isValid()).isFalse();
        // The other permit may go too: breaking a hold can end what it shares with other holds of
        // the client (an etcd session lease), so only "told once" is asserted.
        assertThatThrownBy(both::close).isInstanceOf(LockLostException.class);
        assertThat(told).hasValue(1);
        try (PermitLease again = test.b.semaphore(name, 2).acquire(2, SLACK)) {
            assertThat(again.count()).isEqualTo(2);
        }
        assertThat(residue(semaphore, 2)).isZero();
    }

    // ---- changing the count ----------------------------------------------------------------------

    /** The slot model's count per handle (a native semaphore refuses mixed counts: see the native tests). */
    @Test
    void raisingTakesEffectAtOnceAndLoweringLetsHoldersFinish() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = test.a.semaphore(name, 3);
        assumeFalse(three.isNative(), "slot fallback only: a native semaphore stores one count");
        List<PermitLease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(three.acquire(Duration.ofSeconds(5)));
        }
        LockSemaphore one = test.b.semaphore(name, 1);
        assertThat(one.tryAcquire()).isEmpty();
        PermitLease slot0 = held.stream().filter(p -> p.slots().equals(List.of(0))).findFirst().orElseThrow();
        for (PermitLease permit : held) {
            if (permit != slot0) {
                assertThat(permit.isValid()).as("a holder above the lowered count keeps its permit").isTrue();
                permit.close();
            }
        }
        assertThat(one.tryAcquire()).as("slots at or above the lowered count are not handed out again").isEmpty();
        slot0.close();
        PermitLease only = one.acquire(Duration.ofSeconds(5));
        assertThat(only.slots()).containsExactly(0);
        assertThat(one.tryAcquire()).isEmpty();
        try (PermitLease raised = test.a.semaphore(name, 2).tryAcquire().orElseThrow(
                () -> new AssertionError("a raised count did not take effect at once"))) {
            assertThat(raised.slots()).containsExactly(1);
        }
        only.close();
        assertThat(residue(three, 3)).isZero();
    }

    // ---- native semaphores ------------------------------------------------------------------------

    private LockSemaphore nativeOnly(LockSemaphore semaphore) {
        assumeTrue(semaphore.isNative(), "native semaphores only (LockBackend.supportsPermits())");
        return semaphore;
    }

    /** Every acquisition, whatever its count and client, takes the next token of the name's one counter. */
    @Test
    void oneFencingCounterPerNameAcrossAllPermits() {
        String name = test.key("sem");
        LockSemaphore a = nativeOnly(test.a.semaphore(name, 3));
        LockSemaphore b = test.b.semaphore(name, 3);
        long last = Long.MIN_VALUE;
        List<PermitLease> open = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            PermitLease permit = (i % 2 == 0 ? a : b).acquire(i % 3 == 0 ? 2 : 1, Duration.ofSeconds(5));
            assertThat(permit.fencingTokens()).hasSize(1);
            assertThat(permit.parts()).hasSize(1);
            assertThat(permit.slots()).isEmpty();
            assertThat(permit.fencingTokens().get(0)).as("token of acquisition " + i).isGreaterThan(last);
            last = permit.fencingTokens().get(0);
            open.add(permit);
            if (open.stream().mapToInt(PermitLease::count).sum() >= 2) {
                open.remove(0).close();
            }
        }
        open.forEach(PermitLease::close);
    }

    /** n permits are one hold: granted together when they fit, never partly. */
    @Test
    void nativeNPermitsAreOneHoldAllOrNothing() throws Exception {
        String name = test.key("sem");
        LockSemaphore a = nativeOnly(test.a.semaphore(name, 3));
        try (PermitLease two = a.acquire(2, Duration.ofSeconds(5))) {
            LockSemaphore b = test.b.semaphore(name, 3);
            assertThat(b.tryAcquire(2, Duration.ofMillis(300))).as("2 more do not fit beside 2 of 3").isEmpty();
            assertThat(test.b.inspect(a.permitsKey()).holders()).as("the timed-out request left nothing").hasSize(1);
            try (PermitLease one = b.tryAcquire().orElseThrow(() -> new AssertionError("1 of 3 was free"))) {
                assertThat(one.count()).isEqualTo(1);
                assertThat(test.a.inspect(a.permitsKey()).holders()).hasSize(2);
            }
        }
        assertThat(residue(test.a.semaphore(name, 3), 3)).isZero();
    }

    /** While permits are held, a request with another count is refused naming both; idle, a new count applies. */
    @Test
    void aCountMismatchWhilePermitsAreHeldIsRefused() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = nativeOnly(test.a.semaphore(name, 3));
        PermitLease held = three.acquire(Duration.ofSeconds(5));
        LockSemaphore two = test.b.semaphore(name, 2);
        assertThatThrownBy(() -> two.acquire(Duration.ofSeconds(1)))
                .isInstanceOf(PermitCountMismatchException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("3 permits")
                .hasMessageContaining("expects 2")
                .satisfies(e -> {
                    assertThat(((PermitCountMismatchException) e).storedPermits()).isEqualTo(3);
                    assertThat(((PermitCountMismatchException) e).requestedPermits()).isEqualTo(2);
                });
        assertThat(test.b.heldLocks()).isEmpty();
        held.close();
        try (PermitLease idle = two.acquire(Duration.ofSeconds(5))) {
            assertThat(idle.count()).as("an idle semaphore takes the new count").isEqualTo(1);
            assertThatThrownBy(() -> three.tryAcquire(1, Duration.ZERO)).isInstanceOf(PermitCountMismatchException.class);
        }
        assertThat(residue(three, 3)).isZero();
    }

    /** A raise takes effect at once: a waiter that now fits is woken (it follows the stored count). */
    @Test
    void raisingThePermitsWakesAWaiter() throws Exception {
        String name = test.key("sem");
        LockSemaphore a = nativeOnly(test.a.semaphore(name, 2));
        PermitLease both = a.acquire(2, Duration.ofSeconds(5));
        AtomicReference<Object> result = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                result.set(test.b.semaphore(name, 2).acquire(Duration.ofSeconds(60)));
            } catch (Throwable t) {
                result.set(t);
            }
            done.countDown();
        }, "semaphore-waiter");
        waiter.start();
        Thread.sleep(500);
        assertThat(done.getCount()).as("the waiter waits while 2 of 2 are held").isEqualTo(1);
        a.setPermits(3);
        assertThat(a.permits()).isEqualTo(3);
        assertThat(done.await(SLACK.toMillis(), TimeUnit.MILLISECONDS)).as("the raise woke the waiter").isTrue();
        assertThat(result.get()).isInstanceOf(PermitLease.class);
        assertThat(both.isValid()).isTrue();
        ((PermitLease) result.get()).close();
        both.close();
        assertThat(residue(a, 3)).isZero();
    }

    /** A lower count lets current holders finish and grants nothing until the holds fit under it. */
    @Test
    void loweringThePermitsLetsHoldersFinish() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = nativeOnly(test.a.semaphore(name, 3));
        List<PermitLease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(three.acquire(Duration.ofSeconds(5)));
        }
        three.setPermits(1);
        LockSemaphore one = test.b.semaphore(name, 1);
        for (int i = 0; i < 3; i++) {
            assertThat(held.get(i).isValid()).as("holder " + i + " keeps its permit").isTrue();
            assertThat(one.tryAcquire()).as("nothing fits while " + (3 - i) + " are held under 1").isEmpty();
            held.get(i).close();
        }
        try (PermitLease only = one.acquire(Duration.ofSeconds(5))) {
            assertThat(one.tryAcquire()).isEmpty();
            assertThat(only.isValid()).isTrue();
        }
        assertThat(residue(one, 1)).isZero();
    }

    /** Where the backend serves permit waiters in arrival order: a waiter for 2 is not overtaken by later ones for 1. */
    @Test
    void aWaiterForManyIsNotOvertakenByLaterWaitersForFew() throws Exception {
        assumeTrue(test.fairPermits(), "the backend declares no arrival order for permit waiters");
        String name = test.key("sem");
        LockSemaphore a = nativeOnly(test.a.semaphore(name, 2));
        PermitLease first = a.acquire(Duration.ofSeconds(5));
        PermitLease second = a.acquire(Duration.ofSeconds(5));
        List<String> order = new CopyOnWriteArrayList<>();
        List<PermitLease> granted = new CopyOnWriteArrayList<>();
        Thread big = waiter(test.b.semaphore(name, 2), 2, "big", order, granted);
        big.start();
        // Queued first (b's first request may have to open its session): a fixed sleep could let small in ahead
        awaitWaiting(a, 1);
        Thread small = waiter(test.b.semaphore(name, 2), 1, "small", order, granted);
        small.start();
        awaitWaiting(a, 2);
        first.close();
        Thread.sleep(500);
        assertThat(order).as("one permit free: the later waiter for 1 must not pass the waiter for 2").isEmpty();
        assertThat(a.tryAcquire()).as("nor may a new try").isEmpty();
        second.close();
        big.join(SLACK.toMillis());
        assertThat(order).startsWith("big");
        for (PermitLease permit : granted) {
            if (permit.count() == 2) {
                permit.close();
            }
        }
        small.join(SLACK.toMillis());
        assertThat(order).containsExactly("big", "small");
        granted.stream().filter(p -> p.count() == 1).forEach(PermitLease::close);
        assertThat(residue(a, 2)).isZero();
    }

    /** Waits until the server reports {@code n} requests waiting for {@code semaphore}'s permits. */
    private void awaitWaiting(LockSemaphore semaphore, int n) throws InterruptedException {
        long deadline = System.nanoTime() + SLACK.toNanos();
        int seen = -1;
        while (System.nanoTime() - deadline < 0) {
            seen = test.a.inspect(semaphore.permitsKey()).waiters().orElseThrow(() -> new AssertionError(
                    "a backend that declares arrival order for permit waiters must report its waiters"));
            if (seen >= n) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(n + " waiters for " + semaphore.permitsKey() + " expected, the server reports " + seen);
    }

    private static Thread waiter(LockSemaphore semaphore, int n, String label, List<String> order,
                                 List<PermitLease> granted) {
        return new Thread(() -> {
            PermitLease permit = semaphore.acquire(n, Duration.ofSeconds(60));
            granted.add(permit);
            order.add(label);
        }, "semaphore-waiter-" + label);
    }
}
