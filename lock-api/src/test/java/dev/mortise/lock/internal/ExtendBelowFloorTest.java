package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.HandTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code extend} with a lease shorter than the backend honours ends the hold that long from now
 * (issue 29, item 3): it used to throw, and the hold stayed for its old lease. Shortening never
 * makes a hold last longer than asked, so no floor applies to it.
 */
class ExtendBelowFloorTest {

    @Test
    void aLeaseShorterThanTheFloorEndsTheHoldThenAndFreesTheKey() throws Exception {
        HandTicker ticker = new HandTicker();
        LocalLockServer server = new LocalLockServer("hand", ticker);
        ScriptedBackend backend = new ScriptedBackend(server);
        backend.minimumLease = Duration.ofSeconds(1);
        ScriptedBackend other = new ScriptedBackend(server);
        try (LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(3))
                .clockDrift(0, Duration.ZERO).build();
             LockClient rival = LockClient.builder(other).defaultLease(Duration.ofSeconds(3))
                     .clockDrift(0, Duration.ZERO).build()) {
            LockLease lease = client.acquire("k", Duration.ofSeconds(1)); // renewed by the watchdog
            List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
            lease.onLost(losses::add);

            lease.extend(Duration.ofMillis(300)); // "keep it until 300 ms from now"

            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofMillis(300)).isPositive();
            ticker.jump(Duration.ofMillis(200)); // the watchdog runs; it must not renew the hold past its end
            assertThat(lease.isValid()).isTrue();
            assertThat(rival.tryAcquire("k")).isEmpty();

            ticker.jump(Duration.ofMillis(100));
            assertThat(lease.isValid()).isFalse();
            assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.EXPIRED);
            // The client clears the ended hold on the server (on its watchdog thread): the key is free
            // at the end asked for, not when the server's one-second lease would have run out.
            Optional<LockLease> taken = Optional.empty();
            for (int i = 0; i < 500 && taken.isEmpty(); i++) {
                taken = rival.tryAcquire("k");
                if (taken.isEmpty()) {
                    Thread.sleep(10);
                }
            }
            assertThat(taken).as("the key is free once the shortened hold ended").isPresent();
        }
    }

    @Test
    void aLongerExtendAfterAShortOneKeepsTheHoldRenewedAgain() {
        HandTicker ticker = new HandTicker();
        ScriptedBackend backend = new ScriptedBackend(new LocalLockServer("hand", ticker));
        backend.minimumLease = Duration.ofSeconds(1);
        try (LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(3))
                .clockDrift(0, Duration.ZERO).build()) {
            LockLease lease = client.acquire("k", Duration.ofSeconds(1));
            lease.extend(Duration.ofMillis(300));
            lease.extend(Duration.ofSeconds(3)); // changed its mind: renewed with 3 s again

            for (int i = 0; i < 10; i++) {
                ticker.jump(Duration.ofMillis(900)); // each jump within the renewal period
            }
            assertThat(lease.isValid()).isTrue();
        }
    }
}
