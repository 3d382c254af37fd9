package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reentrancy (DESIGN.md "Semantics" 2): the owning thread (or explicit owner) nests holds that share
 * one token and one server hold, released with the last nested lease; another thread is another owner.
 * Run by every {@link LockBackendContractSuite} as its nested {@code Reentrancy} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ReentrancyContract extends NestedContract {

    ReentrancyContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void reentrantAcquireNestsAndSharesTheToken() {
        String key = key();
        try (LockLease outer = a.acquire(key, Duration.ofSeconds(5))) {
            try (LockLease inner = a.acquire(key, Duration.ofSeconds(5));
                 LockLease innermost = a.tryAcquire(key).orElseThrow()) {
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
                assertThat(innermost.fencingToken()).isEqualTo(outer.fencingToken());
                assertThat(outer.holdCount()).isEqualTo(3);
            }
            assertThat(outer.holdCount()).isEqualTo(1);
        }
    }

    @Test
    void lockIsHeldUntilTheLastNestedLeaseCloses() {
        String key = key();
        LockLease outer = a.acquire(key, Duration.ofSeconds(5));
        LockLease inner = a.acquire(key, Duration.ofSeconds(5));
        outer.close();
        assertThat(b.tryAcquire(key)).as("still held by the inner lease").isEmpty();
        assertThat(inner.isValid()).isTrue();
        inner.close();
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    @Test
    void reentryDoesNotCallTheServer() throws Exception {
        CountingBackend counting = new CountingBackend(newBackend());
        LockClient client = track(LockClient.builder(counting).defaultLease(watchdogLease()).build());
        String key = key();
        try (LockLease outer = client.acquire(key, Duration.ofSeconds(5))) {
            for (int i = 0; i < 5; i++) {
                client.acquire(key, Duration.ofSeconds(5)).close();
            }
            assertThat(outer.holdCount()).isEqualTo(1);
        }
        assertThat(counting.acquireCalls.get()).isEqualTo(1);
        assertThat(counting.releaseCalls.get()).isEqualTo(1);
    }

    @Test
    void anotherThreadOfTheSameClientIsAnotherOwner() throws Exception {
        String key = key();
        try (LockLease lease = a.acquire(key, Duration.ofSeconds(5))) {
            Optional<LockLease> other = CompletableFuture.supplyAsync(() -> a.tryAcquire(key)).get(30, TimeUnit.SECONDS);
            assertThat(other).isEmpty();
            assertThat(lease.holdCount()).isEqualTo(1);
        }
    }

    @Test
    void explicitOwnerReentersFromAnyThreadAndExcludesOtherOwners() throws Exception {
        String key = key();
        LockSpec alpha = LockSpec.of(key).owner("alpha");
        try (LockLease first = a.acquire(alpha)) {
            LockLease second = CompletableFuture.supplyAsync(() -> a.acquire(alpha)).get(30, TimeUnit.SECONDS);
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
            assertThat(first.holdCount()).isEqualTo(2);
            assertThat(a.tryAcquire(LockSpec.of(key).owner("beta"))).isEmpty();
            assertThat(a.tryAcquire(key)).as("the thread is not owner alpha").isEmpty();
            second.close();
        }
    }
}
