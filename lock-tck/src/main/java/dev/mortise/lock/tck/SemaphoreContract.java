package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
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
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The semaphore contract ({@link LockClient#semaphore}, {@link LockSemaphore}) against a backend's
 * real server, run by every {@link LockBackendContractSuite} as its nested {@code Semaphore} class,
 * with that suite's clients {@code a} and {@code b} and its hooks ({@code breakHold},
 * {@code residueOnServer} on the slot keys {@code name + "#permit-" + i}): never more valid
 * holders than permits across clients, permits of a dead holder freed when its leases end, n
 * permits all or nothing, nothing left behind by a timeout or an interrupt, and one loss of the
 * whole when a permit's hold is broken.
 *
 * <p>What depends on the backend's declared capability is generated, never skipped: on a backend
 * with native semaphores ({@code LockBackend.supportsPermits()}) {@link #nativeSemaphores()} adds
 * {@link NativeSemaphoreCases} (one fencing counter per name, the stored count, and arrival order
 * where the suite declares {@link LockBackendContractSuite#fairPermits()}); on one without,
 * {@link #slotFallback()} adds the raise/lower semantics of the slot model. Each generated test
 * runs as a test of its own, with new clients. Every wait is "eventually, within the lease and
 * generous slack"; nothing here measures speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SemaphoreContract {

    /** Slack on top of a lease for "freed eventually": wide, CI machines are loaded. */
    static final Duration SLACK = Duration.ofSeconds(10);

    private final LockBackendContractSuite test;

    /** @param test the enclosing contract test, whose fixture ({@code a}, {@code b}) is set up per test */
    protected SemaphoreContract(LockBackendContractSuite test) {
        this.test = test;
    }

    private int residue(LockSemaphore semaphore, int slots) throws Exception {
        return residue(test, semaphore, slots);
    }

    /** Records the server keeps for {@code semaphore}: on its permits key if native, else on its first {@code slots} slots. */
    static int residue(LockBackendContractSuite test, LockSemaphore semaphore, int slots) throws Exception {
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
        // The dead holder's records end with their leases: on a quorum backend (Redlock) the survivor
        // is granted once a majority dropped them, a minority may drop theirs a moment later.
        LockBackendContractSuite.await(test.watchdogLease().plus(SLACK), () -> residueOrMinusOne(survivor) == 0,
                "nothing left of the dead holder or the survivor on the server");
    }

    private int residueOrMinusOne(LockSemaphore semaphore) {
        try {
            return residue(semaphore, 2);
        } catch (Exception e) {
            return -1;
        }
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
        waiter.join(LockBackendContractSuite.SLACK.toMillis());
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
    void raisingTakesEffectAtOnceAndLoweringLetsHoldersFinish() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = test.a.semaphore(name, 3);
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

    // ---- what depends on the backend's capability: generated where it applies ----------------------

    /** How long one generated test may take, as {@code @Timeout} bounds a declared one. */
    private static final Duration GENERATED_TIMEOUT = Duration.ofSeconds(120);

    /** What a native semaphore adds ({@link NativeSemaphoreCases}); none on a backend without one. */
    @TestFactory
    Stream<DynamicTest> nativeSemaphores() {
        if (!test.supportsPermits()) {
            return Stream.empty();
        }
        NativeSemaphoreCases cases = new NativeSemaphoreCases(test);
        Stream<DynamicTest> always = Stream.of(
                generated("oneFencingCounterPerNameAcrossAllPermits", cases, NativeSemaphoreCases::oneFencingCounterPerNameAcrossAllPermits),
                generated("nativeNPermitsAreOneHoldAllOrNothing", cases, NativeSemaphoreCases::nativeNPermitsAreOneHoldAllOrNothing),
                generated("aCountMismatchWhilePermitsAreHeldIsRefused", cases, NativeSemaphoreCases::aCountMismatchWhilePermitsAreHeldIsRefused),
                generated("raisingThePermitsWakesAWaiter", cases, NativeSemaphoreCases::raisingThePermitsWakesAWaiter),
                generated("loweringThePermitsLetsHoldersFinish", cases, NativeSemaphoreCases::loweringThePermitsLetsHoldersFinish));
        return test.fairPermits()
                ? Stream.concat(always, Stream.of(generated("aWaiterForManyIsNotOvertakenByLaterWaitersForFew", cases,
                        NativeSemaphoreCases::aWaiterForManyIsNotOvertakenByLaterWaitersForFew)))
                : always;
    }

    /** What only the slot fallback does (a native semaphore stores one count); none on a native backend. */
    @TestFactory
    Stream<DynamicTest> slotFallback() {
        if (test.supportsPermits()) {
            return Stream.empty();
        }
        return Stream.of(generated("raisingTakesEffectAtOnceAndLoweringLetsHoldersFinish", this,
                SemaphoreContract::raisingTakesEffectAtOnceAndLoweringLetsHoldersFinish));
    }

    /** One case of {@code cases} as a dynamic test run as a test of its own ({@link LockBackendContractSuite#runAsOwnTest}). */
    private <T> DynamicTest generated(String name, T cases, Case<T> body) {
        return DynamicTest.dynamicTest(name, () -> assertTimeoutPreemptively(GENERATED_TIMEOUT,
                () -> test.runAsOwnTest(name, () -> body.run(cases)), name + " did not end within " + GENERATED_TIMEOUT));
    }

    /** A test method of a cases class. */
    @FunctionalInterface
    interface Case<T> {
        void run(T cases) throws Exception;
    }
}
