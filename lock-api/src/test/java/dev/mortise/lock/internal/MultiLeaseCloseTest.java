package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.HandTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-key lease closed while every part is valid ends the work under every lock: a part
 * whose lease runs out while another part's release takes its time (a reply cut and resent, a
 * slow server) is no loss, and neither is the server answering that part's own release with
 * "gone" once its lease ran out there. The wire suite saw both on Redis: a cut release reply
 * that Redisson resent a few seconds later, and the other key reported lost.
 */
class MultiLeaseCloseTest {

    @Test
    void aPartWhoseLeaseRunsOutWhileAnotherPartIsReleasedIsNoLoss() throws Exception {
        HandTicker ticker = new HandTicker();
        LocalLockServer server = new LocalLockServer("hand", ticker);
        ScriptedBackend backend = new ScriptedBackend(server);
        ScriptedBackend other = new ScriptedBackend(server);
        try (LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(3))
                .clockDrift(0, Duration.ZERO).build();
             LockClient rival = LockClient.builder(other).defaultLease(Duration.ofSeconds(3))
                     .clockDrift(0, Duration.ZERO).build()) {
            MultiLease lease = client.acquireAll(MultiLockSpec.of(List.of("a", "b")).lease(Duration.ofSeconds(2)));
            List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
            lease.onLost(losses::add);
            ticker.jump(Duration.ofSeconds(1));
            assertThat(lease.isValid()).isTrue();
            AtomicBoolean first = new AtomicBoolean(true);
            // The first part's release takes two seconds: both leases run out meanwhile.
            backend.beforeRelease = grant -> {
                if (first.getAndSet(false)) {
                    ticker.jump(Duration.ofSeconds(2));
                }
            };

            lease.close(); // the work ended while both parts were valid: no LockLostException

            assertThat(losses).as("onLost of a lease closed while valid").isEmpty();
            for (String key : List.of("a", "b")) {
                Optional<LockLease> taken = rival.tryAcquire(key);
                assertThat(taken).as("key %s free after the close", key).isPresent();
                taken.get().close();
            }
        }
    }
}
