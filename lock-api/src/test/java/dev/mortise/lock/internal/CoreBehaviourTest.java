package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

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
    void closingTheClientEndsOpenLeases() {
        LocalLockBackend backend = LocalLockBackend.create();
        LockClient client = LockClient.builder(backend).build();
        LockLease lease = client.acquire("k", Duration.ofSeconds(1));
        client.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(backend.server().isHeld("k")).isFalse();
    }
}
