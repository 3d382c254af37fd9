package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.HandTicker;
import dev.mortise.lock.spi.Ticker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog picks the holds that are due, claims each and renews it with its lease. An
 * {@code extend} that completes between the watchdog's reading a hold's lease and its claim
 * must not be undone by a renewal with the lease read before it (issue 28, item 3).
 */
class RenewerExtendRaceTest {

    /**
     * The race has no seam to stop at (the extend must complete between two reads of the watchdog
     * and its claim), so it is run many times: extends of alternating length race the watchdog's renewals,
     * seeded, for many rounds. After both are done, the hold must keep the lease of the last
     * extend (a renewal never asks for a lease an extend already replaced).
     */
    @Test
    void extendsRacingTheWatchdogAreNeverUndone() throws Exception {
        HandTicker ticker = new HandTicker();
        ScriptedBackend backend = new ScriptedBackend(new LocalLockServer("hand", ticker));
        java.util.Random random = new java.util.Random(28_3);
        try (LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(3))
                .clockDrift(0, Duration.ZERO).build()) {
            LockLease lease = client.acquire("k", Duration.ofSeconds(1));
            for (int round = 0; round < 5000; round++) {
                Duration longer = Duration.ofSeconds(20 + random.nextInt(20));
                ticker.now += Duration.ofMillis(2500).toNanos(); // due for the watchdog
                CompletableFuture<Void> extend = CompletableFuture.runAsync(() -> lease.extend(longer));
                ticker.listeners.forEach(Ticker.JumpListener::jumped); // the watchdog renews what is due
                extend.get(5, TimeUnit.SECONDS);
                assertThat(lease.remaining()).as("round %d: extended to %s", round, longer)
                        .isGreaterThan(Duration.ofSeconds(10));
                lease.extend(Duration.ofSeconds(3)); // back to the default lease for the next round
            }
        }
    }
}
