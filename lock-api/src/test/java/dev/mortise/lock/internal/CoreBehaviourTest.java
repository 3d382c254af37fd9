package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Core details the contract suite cannot see from outside: validity arithmetic and local bookkeeping. */
class CoreBehaviourTest {

    @Test
    void usableLeaseSubtractsDriftFactorAndAllowance() {
        ClientSettings settings = new ClientSettings(Duration.ofSeconds(30), 0.01, Duration.ofMillis(2), 512, List.of());
        assertThat(settings.usableNanos(Duration.ofSeconds(10)))
                .isEqualTo(Duration.ofSeconds(10).minusMillis(100).minusMillis(2).toNanos());
    }

    @Test
    void validityIsCountedFromTheRequestAndShrunkByDrift() {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).clockDrift(0.1, Duration.ZERO).build();
             LockLease lease = client.acquire(LockSpec.of("k").lease(Duration.ofSeconds(10)))) {
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(9)).isGreaterThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void localGatesAreRemovedWhenNobodyHoldsOrWaits() throws Exception {
        DefaultLockClient client = (DefaultLockClient) LockClient.builder(LocalLockBackend.create()).build();
        try (client) {
            LockLease held = client.acquire("k", Duration.ofSeconds(1));
            CompletableFuture<Optional<LockLease>> waiter =
                    CompletableFuture.supplyAsync(() -> client.tryAcquire("k", Duration.ofMillis(200)));
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(CompletableFuture.supplyAsync(() -> client.tryAcquire("k")).get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(client.gatesInUse()).isEqualTo(1);
            held.close();
            assertThat(client.gatesInUse()).isZero();
            client.tryAcquire("k").orElseThrow().close();
            assertThat(client.gatesInUse()).isZero();
        }
    }

    @Test
    void expiredHoldIsReleasedOnTheServerOnceWithoutWaitingForClose() throws Exception {
        AtomicInteger releases = new AtomicInteger();
        LocalLockBackend local = LocalLockBackend.create();
        LockBackend counting = new LockBackend() {
            public String name() { return "counting"; }
            public BackendGuarantees guarantees() { return local.guarantees(); }
            public Attempt tryAcquire(LockRequest request) { return local.tryAcquire(request); }
            public boolean renew(Grant grant, Duration lease) { return local.renew(grant, lease); }
            public boolean release(Grant grant) { releases.incrementAndGet(); return local.release(grant); }
            public void ping() { }
            public void close() { }
        };
        try (LockClient client = LockClient.builder(counting).build()) {
            LockLease lease = client.acquire(LockSpec.of("k").lease(Duration.ofMillis(100)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (releases.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(releases.get()).as("released in the background after expiry").isEqualTo(1);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
            assertThat(releases.get()).as("closing does not release again").isEqualTo(1);
        }
    }

    @Test
    void closingTheClientEndsOpenLeases() {
        LocalLockBackend backend = LocalLockBackend.create();
        LockClient client = LockClient.builder(backend).build();
        LockLease lease = client.acquire("k", Duration.ofSeconds(1));
        client.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(backend.server().isHeld("k")).isFalse();
    }
}
