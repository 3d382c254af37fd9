package dev.mortise.lock.spi;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The core's ticker seam, with a ticker of the test's own (lock-test's ManualTicker lives downstream). */
class TickerTest {

    @Test
    void theSystemTickerIsOneInstanceThatIgnoresJumpListeners() {
        assertThat(Ticker.system()).isSameAs(Ticker.system());
        assertThat(Ticker.system().isSystem()).isTrue();
        Ticker lambda = System::nanoTime;
        assertThat(lambda.isSystem()).isFalse();
        assertThat(new LocalLockServer().ticker()).isSameAs(Ticker.system());
    }

    @Test
    void aJumpExpiresALeaseAndTellsItsListenersBeforeTheJumpReturns() {
        HandTicker ticker = new HandTicker();
        LocalLockServer server = new LocalLockServer("hand", ticker);
        try (LockClient locks = LockClient.builder(new LocalLockBackend(server)).build()) {
            assertThat(ticker.listeners).hasSize(2); // the server and the client
            LockLease lease = locks.acquire(LockSpec.of("k").lease(Duration.ofSeconds(1)));
            List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
            lease.onLost(losses::add);

            ticker.jump(Duration.ofMillis(500));
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isLessThan(Duration.ofMillis(500));

            ticker.jump(Duration.ofMillis(500));
            assertThat(lease.isValid()).isFalse();
            assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.EXPIRED);
            assertThat(server.isHeld("k")).isFalse();
        }
        assertThat(ticker.listeners).hasSize(1); // the closed client unregistered; the server stays
    }

    @Test
    void aJumpWithinTheRenewalPeriodRenewsAndReportsThePeriod() {
        HandTicker ticker = new HandTicker();
        LocalLockServer server = new LocalLockServer("hand", ticker);
        try (LockClient locks = LockClient.builder(new LocalLockBackend(server)).defaultLease(Duration.ofSeconds(3))
                .build()) {
            Ticker.JumpListener client = ticker.listeners.get(1);
            assertThat(client.jumped()).isEqualTo(Long.MAX_VALUE); // nothing renewed: any jump is fine
            try (LockLease lease = locks.acquire("renewed", Duration.ofSeconds(1))) {
                long period = client.jumped();
                assertThat(Duration.ofNanos(period)).isLessThanOrEqualTo(Duration.ofSeconds(1));
                for (int i = 0; i < 30; i++) {
                    ticker.now += period;
                    client.jumped();
                }
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void aClientRefusesATickerThatIsNotItsBackends() {
        assertThatThrownBy(() -> LockClient.builder(LocalLockBackend.create()).ticker(new HandTicker()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backend 'local'")
                .hasMessageContaining("keeps real time");
        LocalLockBackend hand = new LocalLockBackend(new LocalLockServer("hand", new HandTicker()));
        assertThatThrownBy(() -> LockClient.builder(hand).ticker(Ticker.system()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("drop LockClientBuilder.ticker");
    }
}
