package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Loss notification (DESIGN.md "Semantics" 3b): a hold broken on the server is told once through
 * {@code onLost}, the lost lease refuses to be used, its close never releases the next holder, and
 * listeners added late or failing do not lose the news.
 * Run by every {@link LockBackendContractSuite} as its nested {@code LossNotification} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class LossNotificationContract extends NestedContract {

    LossNotificationContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void holdBrokenOnTheServerFiresOnLostOnceAndEnsureValidThrows() throws Exception {
        String key = key();
        AtomicInteger fired = new AtomicInteger();
        AtomicReference<LockLostEvent> event = new AtomicReference<>();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5)).onLost(e -> {
            fired.incrementAndGet();
            event.set(e);
        });
        breakHold(lease);
        await(watchdogLease().plus(SLACK), () -> fired.get() > 0, "onLost after the hold was broken on the server");
        Thread.sleep(watchdogLease().toMillis());
        assertThat(fired.get()).isEqualTo(1);
        assertThat(event.get().fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LockLostException.class)
                .hasMessageContaining(key).hasMessageContaining(a.backendName());
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void closingALostLeaseDoesNotReleaseTheNewHolder() throws Exception {
        String key = key();
        LockLease lost = a.acquire(key, Duration.ofSeconds(5));
        breakHold(lost);
        try (LockLease other = b.acquire(key, SLACK)) {
            assertThat(other.fencingToken()).isGreaterThan(lost.fencingToken());
            assertThatThrownBy(lost::close).isInstanceOf(LockLostException.class);
            assertThat(other.isValid()).isTrue();
            assertThat(newClient().tryAcquire(key)).as("the new holder keeps it").isEmpty();
        }
    }

    @Test
    void listenerAddedAfterTheLossFiresAtOnce() throws Exception {
        String key = key();
        LockLease lease = a.acquire(LockSpec.of(key).lease(shortLease()));
        await(shortLease().plus(SLACK), () -> !lease.isValid(), "lease to expire");
        AtomicReference<LockLostEvent> event = new AtomicReference<>();
        lease.onLost(event::set);
        assertThat(event.get()).isNotNull();
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void failingLostListenerDoesNotStopTheOthers() throws Exception {
        String key = key();
        AtomicInteger fired = new AtomicInteger();
        LockLease lease = a.acquire(LockSpec.of(key).lease(shortLease()))
                .onLost(e -> {
                    throw new IllegalStateException("listener bug");
                })
                .onLost(e -> fired.incrementAndGet());
        await(shortLease().plus(SLACK), () -> fired.get() == 1, "second listener to run");
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }
}
