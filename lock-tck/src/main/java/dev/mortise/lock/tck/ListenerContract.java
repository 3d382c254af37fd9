package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Client listeners ({@link dev.mortise.lock.LockListener}): they see busy, timeout, acquire and release
 * of a key, and a loss with its reason, and one failing listener stops none of the others.
 * Run by every {@link LockBackendContractSuite} as its nested {@code Listeners} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ListenerContract extends NestedContract {

    ListenerContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void listenersSeeAcquireBusyTimeoutAndRelease() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        LockClient client = track(LockClient.builder(newBackend()).defaultLease(watchdogLease())
                .listener(e -> {
                    throw new IllegalStateException("broken listener");
                })
                .listener(events::add).build());
        String key = key();
        try (LockLease held = a.acquire(key, Duration.ofSeconds(5))) {
            assertThat(client.tryAcquire(key)).isEmpty();
            assertThat(client.tryAcquire(key, Duration.ofMillis(100))).isEmpty();
        }
        client.acquire(key, Duration.ofSeconds(5)).close();
        assertThat(events).filteredOn(e -> e.type() != LockEvent.Type.RENEWED).extracting(LockEvent::type).containsExactly(LockEvent.Type.BUSY, LockEvent.Type.TIMEOUT,
                LockEvent.Type.ACQUIRED, LockEvent.Type.RELEASED);
        assertThat(events).allSatisfy(e -> assertThat(e.key()).isEqualTo(key));
    }

    @Test
    void listenersSeeALossWithItsReason() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        LockClient client = track(LockClient.builder(newBackend()).defaultLease(watchdogLease())
                .listener(events::add).build());
        String key = key();
        LockLease lease = client.acquire(LockSpec.of(key).lease(shortLease()));
        await(shortLease().plus(SLACK), () -> events.stream().anyMatch(e -> e.type() == LockEvent.Type.LOST),
                "a LOST event");
        LockEvent lost = events.stream().filter(e -> e.type() == LockEvent.Type.LOST).findFirst().orElseThrow();
        assertThat(lost.lostReason()).isEqualTo(LostReason.EXPIRED);
        assertThat(lost.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(events).filteredOn(e -> e.type() != LockEvent.Type.LOST).allSatisfy(e -> assertThat(e.lostReason()).isNull());
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    }
}
