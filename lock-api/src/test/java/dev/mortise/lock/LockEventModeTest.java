package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Every {@link LockEvent} carries the mode of its hold, or of the request when nothing was granted. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockEventModeTest {

    private final LocalLockServer server = new LocalLockServer("events");
    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private final LockClient client = LockClient.builder(new LocalLockBackend(server))
            .defaultLease(Duration.ofSeconds(2)).listener(events::add).build();
    private final LockClient other = LockClient.builder(new LocalLockBackend(server))
            .defaultLease(Duration.ofSeconds(2)).build();

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    private List<LockEvent> of(String key) {
        return events.stream().filter(e -> e.key().equals(key) && e.type() != LockEvent.Type.RENEWED).toList();
    }

    @Test
    void aSharedHoldsEventsAreShared() {
        try (LockLease lease = client.acquire(LockSpec.of("r").shared().waitFor(Duration.ofSeconds(1)))) {
            lease.extend(Duration.ofSeconds(2));
        }
        assertThat(events).filteredOn(e -> e.key().equals("r")).extracting(LockEvent::type)
                .containsExactly(LockEvent.Type.ACQUIRED, LockEvent.Type.RENEWED, LockEvent.Type.RELEASED);
        assertThat(events).filteredOn(e -> e.key().equals("r")).extracting(LockEvent::mode).containsOnly(LockMode.SHARED);
    }

    @Test
    void anExclusiveHoldsEventsAreExclusive() {
        client.acquire("w", Duration.ofSeconds(1)).close();
        assertThat(of("w")).extracting(LockEvent::type).containsExactly(LockEvent.Type.ACQUIRED, LockEvent.Type.RELEASED);
        assertThat(of("w")).extracting(LockEvent::mode).containsOnly(LockMode.EXCLUSIVE);
    }

    /** A wait that runs out is a time-out, told once: not also an error (metrics counted it twice). */
    @Test
    void aTimedOutAcquireIsATimeoutAndNotAnError() {
        try (LockLease held = other.acquire("slow", Duration.ofSeconds(1))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.acquire("slow", Duration.ofMillis(50)))
                    .isInstanceOf(LockTimeoutException.class);
        }
        assertThat(of("slow")).extracting(LockEvent::type).containsExactly(LockEvent.Type.TIMEOUT);
    }

    @Test
    void aRequestNotGrantedCarriesTheModeAskedFor() {
        try (LockLease held = other.acquire("busy", Duration.ofSeconds(1))) {
            assertThat(client.tryAcquire(LockSpec.of("busy").shared())).isEmpty();
            assertThat(client.tryAcquire(LockSpec.of("busy").shared().waitFor(Duration.ofMillis(50)))).isEmpty();
            assertThat(client.tryAcquire("busy")).isEmpty();
        }
        assertThat(of("busy")).extracting(LockEvent::type, LockEvent::mode).containsExactly(
                org.assertj.core.groups.Tuple.tuple(LockEvent.Type.BUSY, LockMode.SHARED),
                org.assertj.core.groups.Tuple.tuple(LockEvent.Type.TIMEOUT, LockMode.SHARED),
                org.assertj.core.groups.Tuple.tuple(LockEvent.Type.BUSY, LockMode.EXCLUSIVE));
    }

    @Test
    void aLostSharedHoldIsReportedShared() {
        LockLease lease = client.acquire(LockSpec.of("lost").shared().waitFor(Duration.ofSeconds(1)));
        assertThat(client.forceRelease("lost")).isTrue();
        assertThat(of("lost")).extracting(LockEvent::type, LockEvent::mode).containsExactly(
                org.assertj.core.groups.Tuple.tuple(LockEvent.Type.ACQUIRED, LockMode.SHARED),
                org.assertj.core.groups.Tuple.tuple(LockEvent.Type.LOST, LockMode.SHARED));
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void theOldConstructorMeansExclusiveAndNullModeIsExclusive() {
        LockEvent old = new LockEvent(LockEvent.Type.ACQUIRED, "b", "k", 1, Duration.ZERO, null, null);
        assertThat(old.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(new LockEvent(LockEvent.Type.ACQUIRED, "b", "k", 1, Duration.ZERO, null, null, null).mode())
                .isEqualTo(LockMode.EXCLUSIVE);
    }
}
