package dev.mortise.lock.test;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Ticker;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ticker rule: a client measures lease time on its backend's ticker, and a hand-moved ticker
 * cannot be combined by accident with a backend that keeps real time.
 */
class TickerRuleTest {

    @Test
    void aHandMovedTickerWithABackendOnRealTimeIsRefusedAtBuild() {
        LockBackend realTime = LocalLockBackend.create(); // keeps real time, as every networked backend does
        assertThatThrownBy(() -> LockClient.builder(realTime).ticker(new ManualTicker()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backend 'local'")
                .hasMessageContaining("keeps real time")
                .hasMessageContaining("LocalLockServer");
    }

    @Test
    void anotherTickerThanTheBackendsIsRefusedAtBuild() {
        LocalLockBackend manual = new LocalLockBackend(new LocalLockServer("manual", new ManualTicker()));
        assertThatThrownBy(() -> LockClient.builder(manual).ticker(Ticker.system()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backend 'local'")
                .hasMessageContaining("drop LockClientBuilder.ticker");
    }

    @Test
    void theClientTakesItsBackendsTickerByDefault() {
        ManualTicker ticker = new ManualTicker();
        try (LockClient locks = LockClient.builder(new LocalLockBackend(new LocalLockServer("m", ticker))).build();
             LockLease lease = locks.acquire(LockSpec.of("k").lease(Duration.ofSeconds(10)))) {
            Duration left = lease.remaining();
            assertThat(lease.remaining()).isEqualTo(left);
            ticker.advance(Duration.ofSeconds(10));
            assertThat(lease.isValid()).isFalse();
        } catch (dev.mortise.lock.LockLostException expectedAtClose) {
            assertThat(expectedAtClose).hasMessageContaining("'k'");
        }
    }

    @Test
    void theSystemTickerIsTheDefaultOfEveryBackendAndClient() {
        assertThat(LocalLockBackend.create().ticker()).isSameAs(Ticker.system());
        assertThat(Ticker.system().isSystem()).isTrue();
        assertThat(new ManualTicker().isSystem()).isFalse();
        try (LockClient locks = LockClient.builder(LocalLockBackend.create()).ticker(Ticker.system()).build()) {
            locks.acquire("k", Duration.ofSeconds(1)).close();
        }
    }

    /** A wrapper that forgets to pass on its inner backend's ticker: its grants are on another clock. */
    private static final class ForgetfulWrapper implements LockBackend {
        private final LocalLockBackend inner;

        ForgetfulWrapper(LocalLockBackend inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return "forgetful";
        }

        @Override
        public BackendGuarantees guarantees() {
            return inner.guarantees();
        }

        @Override
        public Attempt tryAcquire(LockRequest request) {
            return inner.tryAcquire(request);
        }

        @Override
        public java.util.Optional<Duration> renew(Grant grant, Duration lease) {
            return inner.renew(grant, lease);
        }

        @Override
        public boolean release(Grant grant) {
            return inner.release(grant);
        }

        @Override
        public void ping() {
            inner.ping();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aGrantStampedOnAnotherClockIsRefusedNotTrusted() {
        LocalLockServer server = new LocalLockServer("wrapped", new ManualTicker());
        try (LockClient locks = LockClient.builder(new ForgetfulWrapper(new LocalLockBackend(server))).build()) {
            assertThatThrownBy(() -> locks.acquire("k", Duration.ofSeconds(1)))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("ticker()")
                    .hasMessageContaining("'forgetful'");
            assertThat(server.isHeld("k")).isFalse();
        }
    }
}
