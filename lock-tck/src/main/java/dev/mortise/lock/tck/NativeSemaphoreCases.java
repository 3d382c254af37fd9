package dev.mortise.lock.tck;

import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a native semaphore ({@link LockSemaphore#isNative()}, {@code LockBackend.supportsPermits()})
 * adds to the semaphore contract: one fencing counter per name, n permits as one hold, the stored
 * count (a mismatch is refused, a raise wakes a waiter, a lower count lets holders finish), and
 * arrival order where the suite declares it ({@link LockBackendContractSuite#fairPermits()}).
 * {@link SemaphoreContract} generates these tests only on a backend that has native semaphores
 * (the arrival-order one only where it is declared), each as a test of its own with new clients
 * {@code a} and {@code b} of the suite; elsewhere they do not exist, rather than being skipped.
 */
final class NativeSemaphoreCases {

    private final LockBackendContractSuite test;

    NativeSemaphoreCases(LockBackendContractSuite test) {
        this.test = test;
    }

    /** Every acquisition, whatever its count and client, takes the next token of the name's one counter. */
    void oneFencingCounterPerNameAcrossAllPermits() {
        String name = test.key("sem");
        LockSemaphore a = test.a.semaphore(name, 3);
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
    void nativeNPermitsAreOneHoldAllOrNothing() throws Exception {
        String name = test.key("sem");
        LockSemaphore a = test.a.semaphore(name, 3);
        try (PermitLease two = a.acquire(2, Duration.ofSeconds(5))) {
            LockSemaphore b = test.b.semaphore(name, 3);
            assertThat(b.tryAcquire(2, Duration.ofMillis(300))).as("2 more do not fit beside 2 of 3").isEmpty();
            assertThat(test.b.inspect(a.permitsKey()).holders()).as("the timed-out request left nothing").hasSize(1);
            try (PermitLease one = b.tryAcquire().orElseThrow(() -> new AssertionError("1 of 3 was free"))) {
                assertThat(one.count()).isEqualTo(1);
                assertThat(test.a.inspect(a.permitsKey()).holders()).hasSize(2);
            }
        }
        assertThat(SemaphoreContract.residue(test, test.a.semaphore(name, 3), 3)).isZero();
    }

    /** While permits are held, a request with another count is refused naming both; idle, a new count applies. */
    void aCountMismatchWhilePermitsAreHeldIsRefused() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = test.a.semaphore(name, 3);
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
        assertThat(SemaphoreContract.residue(test, three, 3)).isZero();
    }

    /** A raise takes effect at once: a waiter that now fits is woken (it follows the stored count). */
    void raisingThePermitsWakesAWaiter() throws Exception {
        String name = test.key("sem");
        LockSemaphore a = test.a.semaphore(name, 2);
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
        assertThat(done.await(SemaphoreContract.SLACK.toMillis(), TimeUnit.MILLISECONDS)).as("the raise woke the waiter").isTrue();
        assertThat(result.get()).isInstanceOf(PermitLease.class);
        assertThat(both.isValid()).isTrue();
        ((PermitLease) result.get()).close();
        both.close();
        assertThat(SemaphoreContract.residue(test, a, 3)).isZero();
    }

    /** A lower count lets current holders finish and grants nothing until the holds fit under it. */
    void loweringThePermitsLetsHoldersFinish() throws Exception {
        String name = test.key("sem");
        LockSemaphore three = test.a.semaphore(name, 3);
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
        assertThat(SemaphoreContract.residue(test, one, 1)).isZero();
    }

    /** Where the backend serves permit waiters in arrival order: a waiter for 2 is not overtaken by later ones for 1. */
    void aWaiterForManyIsNotOvertakenByLaterWaitersForFew() throws Exception {
        String name = test.key("sem");
        LockSemaphore a = test.a.semaphore(name, 2);
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
        big.join(SemaphoreContract.SLACK.toMillis());
        assertThat(order).startsWith("big");
        for (PermitLease permit : granted) {
            if (permit.count() == 2) {
                permit.close();
            }
        }
        small.join(SemaphoreContract.SLACK.toMillis());
        assertThat(order).containsExactly("big", "small");
        granted.stream().filter(p -> p.count() == 1).forEach(PermitLease::close);
        assertThat(SemaphoreContract.residue(test, a, 2)).isZero();
    }

    /** Waits until the server reports {@code n} requests waiting for {@code semaphore}'s permits. */
    private void awaitWaiting(LockSemaphore semaphore, int n) throws InterruptedException {
        long deadline = System.nanoTime() + SemaphoreContract.SLACK.toNanos();
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
