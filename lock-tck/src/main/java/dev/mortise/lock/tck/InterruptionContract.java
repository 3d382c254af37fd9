package dev.mortise.lock.tck;

import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Interruption and timeouts (DESIGN.md "Semantics" 7): an interrupted or timed-out wait ends with
 * the right exception and flag, and leaves nothing on the server that would block the next acquirer.
 * Run by every {@link LockBackendContractSuite} as its nested {@code InterruptionAndTimeouts} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class InterruptionContract extends NestedContract {

    InterruptionContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void interruptedWaitThrowsRestoresTheFlagAndLeavesNothingBehind() throws Exception {
        String key = key();
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = startThread("tck-waiter", () -> {
            waiting.countDown();
            try {
                b.acquire(key, Duration.ofSeconds(60)).close();
            } catch (Throwable t) {
                failure.set(t);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        waiting.await();
        Thread.sleep(500);
        waiter.interrupt();
        waiter.join(SLACK.toMillis());
        assertThat(waiter.isAlive()).as("waiter still waiting after interrupt").isFalse();
        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter.get()).isTrue();
        held.close();
        assertThat(residueOnServer(key)).as("records left on the server for the key").isZero();
        assertThat(newClient().tryAcquire(key)).as("no orphan blocks the next acquirer").hasValueSatisfying(LockLease::close);
        assertThat(b.tryAcquire(key)).as("the interrupted client can lock again").hasValueSatisfying(LockLease::close);
    }

    @Test
    void timedOutWaitLeavesNothingBehind() throws Exception {
        String key = key();
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        assertThat(b.tryAcquire(key, Duration.ofMillis(300))).isEmpty();
        held.close();
        assertThat(residueOnServer(key)).isZero();
        assertThat(newClient().tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    @Test
    void lockInterruptiblyOnAnInterruptedThreadThrowsAtOnce() {
        Lock lock = a.asLock(key());
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
    }
}
