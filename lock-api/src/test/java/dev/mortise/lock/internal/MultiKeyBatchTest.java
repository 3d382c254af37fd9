package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The multi-key fast path ({@link BatchAcquirer#attemptAll}): one {@link LockBackend#tryAcquireAll} when
 * every part is free in the client, today's ordered path otherwise, on the in-process backend.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiKeyBatchTest {

    private final LocalLockServer server = new LocalLockServer();
    private final Counting counting = new Counting(new LocalLockBackend(server));
    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private final DefaultLockClient a = (DefaultLockClient) LockClient.builder(counting)
            .defaultLease(Duration.ofSeconds(5)).listener(events::add).build();
    private final LockClient b = LockClient.builder(new LocalLockBackend(server)).defaultLease(Duration.ofSeconds(5))
            .build();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void freeKeysAreTakenInOneBatchRequestAsOrdinaryLeases() {
        try (MultiLease all = a.acquireAll(List.of("c", "a", "b"), Duration.ofSeconds(1))) {
            assertThat(counting.batches.get()).isEqualTo(1);
            assertThat(counting.singles.get()).as("no per-key request").isZero();
            assertThat(all.keys()).containsExactly("a", "b", "c");
            assertThat(all.isValid()).isTrue();
            List.of("a", "b", "c").forEach(key -> assertThat(server.isHeld(key)).as(key).isTrue());
            assertThat(a.heldLocks()).extracting(h -> h.key()).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(events).filteredOn(e -> e.type() == LockEvent.Type.ACQUIRED).extracting(LockEvent::key)
                    .containsExactly("a", "b", "c");
            // each part is an ordinary lease: reentrant for its owner (thread)
            try (LockLease nested = a.acquire("b", Duration.ZERO)) {
                assertThat(nested.fencingToken()).isEqualTo(all.fencingToken("b"));
            }
            all.extend(Duration.ofSeconds(3));
            assertThat(b.tryAcquire("a")).isEmpty();
        }
        List.of("a", "b", "c").forEach(key -> assertThat(server.isHeld(key)).as(key).isFalse());
        assertThat(a.gatesInUse()).isZero();
    }

    @Test
    void aBusyPartRefusesTheBatchLeavesNothingAndTheOrderedPathThenWaitsForIt() throws Exception {
        LockLease other = b.acquire("b", Duration.ZERO);
        long otherToken = other.fencingToken();
        CompletableFuture<MultiLease> all = CompletableFuture.supplyAsync(
                () -> a.acquireAll(List.of("a", "b", "c"), Duration.ofSeconds(30)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (counting.singles.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5); // "a" taken, "b" asked for one by one
        }
        assertThat(counting.batches.get()).as("one batch, refused").isEqualTo(1);
        assertThat(counting.batchGrants.get()).isZero();
        assertThat(server.isHeld("c")).as("nothing of the batch left on the server").isFalse();
        assertThat(other.isValid()).as("the busy holder is untouched").isTrue();
        assertThat(b.heldLocks()).extracting(h -> h.fencingToken()).containsExactly(otherToken);
        other.close();
        try (MultiLease granted = all.get(20, TimeUnit.SECONDS)) {
            assertThat(granted.keys()).containsExactly("a", "b", "c");
            assertThat(granted.fencingToken("b")).isGreaterThan(otherToken);
        }
        assertThat(a.gatesInUse()).isZero();
    }

    @Test
    void aTryWithoutWaitOnABusyPartGetsNothingAndHoldsNothing() {
        try (LockLease other = b.acquire("b", Duration.ZERO)) {
            assertThat(a.tryAcquireAll(List.of("a", "b", "c"))).isEmpty();
            assertThat(counting.batches.get()).isEqualTo(1);
            List.of("a", "c").forEach(key -> assertThat(server.isHeld(key)).as(key).isFalse());
            assertThat(other.isValid()).isTrue();
            assertThat(a.heldLocks()).isEmpty();
            assertThat(a.gatesInUse()).isZero();
        }
    }

    @Test
    void aPartTheOwnerAlreadyHoldsIsNestedThroughTheOrderedPath() {
        try (LockLease held = a.acquire("b", Duration.ZERO)) {
            int singles = counting.singles.get();
            try (MultiLease all = a.acquireAll(List.of("a", "b", "c"), Duration.ofSeconds(1))) {
                assertThat(counting.batches.get()).as("no batch: a part is in use in the client").isZero();
                assertThat(counting.singles.get() - singles).as("a and c asked, b nested").isEqualTo(2);
                assertThat(all.fencingToken("b")).isEqualTo(held.fencingToken());
            }
            assertThat(held.isValid()).as("the outer lease outlives the nested part").isTrue();
            assertThat(server.isHeld("b")).isTrue();
        }
        assertThat(server.isHeld("b")).isFalse();
    }

    @Test
    void explicitOwnerLeaseAndModesTravelInTheBatch() {
        MultiLockSpec spec = MultiLockSpec.of(List.of("x")).shared("r").lease(Duration.ofSeconds(2)).owner("job-7");
        try (MultiLease all = a.acquireAll(spec)) {
            assertThat(counting.batches.get()).isEqualTo(1);
            assertThat(counting.lastBatch).extracting(LockRequest::mode)
                    .containsExactly(LockMode.SHARED, LockMode.EXCLUSIVE);
            assertThat(counting.lastBatch).allSatisfy(r -> {
                assertThat(r.lease()).isEqualTo(Duration.ofSeconds(2));
                assertThat(r.renewed()).isFalse();
            });
            assertThat(all.mode("r")).isEqualTo(LockMode.SHARED);
            // another reader may join the shared part, no one may take the exclusive one
            try (LockLease reader = b.acquire(LockSpec.of("r").shared())) {
                assertThat(reader.isValid()).isTrue();
            }
            assertThat(b.tryAcquire("x")).isEmpty();
            // the explicit owner nests from another thread
            LockLease nested = CompletableFuture.supplyAsync(() -> a.acquire(LockSpec.of("x").owner("job-7"))).join();
            assertThat(nested.fencingToken()).isEqualTo(all.fencingToken("x"));
            nested.close();
        }
    }

    @Test
    void aFailedBatchThrowsAndHoldsNothing() {
        counting.failBatch.set(true);
        // a backend's own LockBackendException reaches the caller as it does from a single acquire
        assertThatThrownBy(() -> a.acquireAll(List.of("a", "b"), Duration.ofSeconds(1)))
                .isInstanceOf(LockBackendException.class).hasMessageContaining("the batch was not sent");
        assertThat(a.heldLocks()).isEmpty();
        assertThat(a.gatesInUse()).isZero();
        counting.failBatch.set(false);
        counting.failBatchWith = new IllegalStateException("connection reset");
        assertThatThrownBy(() -> a.acquireAll(List.of("a", "b"), Duration.ofSeconds(1)))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("[a, b]").hasMessageContaining("'local'").hasMessageContaining("connection reset");
        assertThat(a.heldLocks()).isEmpty();
        assertThat(a.gatesInUse()).isZero();
        counting.failBatch.set(false);
        try (MultiLease all = a.acquireAll(List.of("a", "b"), Duration.ofSeconds(1))) {
            assertThat(all.isValid()).isTrue();
        }
    }

    @Test
    void aBackendWithoutNativeBatchKeepsTheOrderedPath() {
        counting.noBatch.set(true);
        try (MultiLease all = a.acquireAll(List.of("a", "b", "c"), Duration.ofSeconds(1))) {
            assertThat(counting.singles.get()).isEqualTo(3);
            assertThat(all.isValid()).isTrue();
        }
        assertThat(a.gatesInUse()).isZero();
    }

    @Test
    void aMigrationBatchesOnlyWhenBothStoresDo() {
        LocalLockServer old = new LocalLockServer("old");
        List<LockRequest> requests = List.of(new LockRequest("a", "o-1", Duration.ofSeconds(5), false),
                new LockRequest("b", "o-2", Duration.ofSeconds(5), false));
        dev.mortise.lock.migration.MigratingLockBackend both = new dev.mortise.lock.migration.MigratingLockBackend(
                new LocalLockBackend(old), new LocalLockBackend(server));
        List<Grant> grants = both.tryAcquireAll(requests);
        assertThat(grants).extracting(Grant::key).containsExactly("a", "b");
        assertThat(old.isHeld("a") && server.isHeld("a") && old.isHeld("b") && server.isHeld("b")).isTrue();
        grants.forEach(both::release);

        counting.noBatch.set(true);
        dev.mortise.lock.migration.MigratingLockBackend half = new dev.mortise.lock.migration.MigratingLockBackend(
                new LocalLockBackend(old), counting);
        assertThat(half.tryAcquireAll(requests)).as("no batch in the new store").isNull();
        assertThat(old.isHeld("a") || old.isHeld("b")).as("the old store's grants given back").isFalse();

        counting.noBatch.set(false);
        try (LockLease busy = b.acquire("b", Duration.ZERO)) {
            assertThat(half.tryAcquireAll(requests)).as("busy in the new store").isEmpty();
            assertThat(old.isHeld("a") || old.isHeld("b")).isFalse();
            assertThat(server.isHeld("a")).isFalse();
            assertThat(busy.isValid()).isTrue();
        }
    }

    /** Counts what the core sends; can fail a batch or answer "no native batch". */
    private static final class Counting implements LockBackend {
        private final LocalLockBackend delegate;
        final AtomicInteger singles = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();
        final AtomicInteger batchGrants = new AtomicInteger();
        final AtomicBoolean failBatch = new AtomicBoolean();
        final AtomicBoolean noBatch = new AtomicBoolean();
        volatile List<LockRequest> lastBatch = List.of();
        volatile RuntimeException failBatchWith;

        Counting(LocalLockBackend delegate) {
            this.delegate = delegate;
        }

        public String name() {
            return delegate.name();
        }

        public BackendGuarantees guarantees() {
            return delegate.guarantees();
        }

        public boolean supportsSharedMode() {
            return true;
        }

        public Attempt tryAcquire(LockRequest request) {
            singles.incrementAndGet();
            return delegate.tryAcquire(request);
        }

        public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
            singles.incrementAndGet();
            return delegate.acquire(request, wait);
        }

        public List<Grant> tryAcquireAll(List<LockRequest> requests) {
            if (noBatch.get()) {
                return null;
            }
            batches.incrementAndGet();
            lastBatch = new ArrayList<>(requests);
            if (failBatchWith != null) {
                RuntimeException e = failBatchWith;
                failBatchWith = null;
                throw e;
            }
            if (failBatch.get()) {
                throw new LockBackendException("injected: the batch was not sent", requests.get(0).key(), name(), null);
            }
            List<Grant> grants = delegate.tryAcquireAll(requests);
            batchGrants.addAndGet(grants.size());
            return grants;
        }

        public java.util.Optional<Duration> renew(Grant grant, Duration lease) {
            return delegate.renew(grant, lease);
        }

        public boolean release(Grant grant) {
            return delegate.release(grant);
        }

        public dev.mortise.lock.spi.KeyState inspect(String key) {
            return delegate.inspect(key);
        }

        public void ping() {
        }

        public void close() {
        }
    }
}
