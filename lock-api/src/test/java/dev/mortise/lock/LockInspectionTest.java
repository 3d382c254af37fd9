package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.migration.MigratingLockBackend;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The core side of {@link LockClient#inspect}: checks, holder ids, heldByThisClient, failures; on the local backend. */
class LockInspectionTest {

    private final LocalLockServer server = new LocalLockServer();
    private final List<LockClient> clients = new ArrayList<>();

    private LockClient client(LockBackend backend) {
        LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(5)).build();
        clients.add(client);
        return client;
    }

    private LockClient client() {
        return client(new LocalLockBackend(server));
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    @Test
    void aFreeKeyHasNoHolders() {
        LockInspection free = client().inspect("free");
        assertThat(free.held()).isFalse();
        assertThat(free.mode()).isNull();
        assertThat(free.holders()).isEmpty();
        assertThat(free.key()).isEqualTo("free");
        assertThat(free.backend()).isEqualTo("local");
        assertThat(free.waiters()).hasValue(0);
        assertThat(free.readAt()).isNotNull();
    }

    @Test
    void anExclusiveHoldShowsItsHolderIdTokenAndLeaseButNotItsOwner() {
        LockClient a = client();
        LockClient b = client();
        try (LockLease lease = a.acquire(LockSpec.of("k").lease(Duration.ofSeconds(10)))) {
            LockInspection mine = a.inspect("k");
            assertThat(mine.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(mine.holders()).singleElement().satisfies(h -> {
                assertThat(h.holderId()).isEqualTo(lease.holderId()).hasSize(16).matches("[0-9a-f]{16}");
                assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                assertThat(h.remaining()).hasValueSatisfying(r ->
                        assertThat(r).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10)));
                assertThat(h.heldByThisClient()).isTrue();
            });
            assertThat(mine.heldByThisClient()).isTrue();
            assertThat(a.heldLocks()).singleElement().extracting(HeldLock::holderId).isEqualTo(lease.holderId());
            LockInspection theirs = b.inspect("k");
            assertThat(theirs.holders()).singleElement().satisfies(h -> {
                assertThat(h.holderId()).isEqualTo(lease.holderId());
                assertThat(h.heldByThisClient()).isFalse();
            });
            try (LockLease nested = a.acquire("k", Duration.ZERO)) {
                assertThat(nested.holderId()).isEqualTo(lease.holderId());
            }
        }
        assertThat(a.inspect("k").held()).isFalse();
        try (LockLease again = a.acquire("k", Duration.ZERO)) {
            assertThat(a.inspect("k").holders().get(0).holderId()).isEqualTo(again.holderId());
        }
    }

    @Test
    void sharedHoldsShowEveryReaderWithItsOwnToken() {
        LockClient a = client();
        LockClient b = client();
        try (LockLease one = a.acquire(LockSpec.of("rw").shared());
             LockLease two = b.acquire(LockSpec.of("rw").shared())) {
            LockInspection seen = a.inspect("rw");
            assertThat(seen.mode()).isEqualTo(LockMode.SHARED);
            assertThat(seen.holders()).extracting(LockInspection.Holder::holderId)
                    .containsExactlyInAnyOrder(one.holderId(), two.holderId());
            assertThat(seen.holders()).allSatisfy(h -> assertThat(h.fencingToken()).isPresent());
            assertThat(seen.holders()).filteredOn(LockInspection.Holder::heldByThisClient)
                    .singleElement().satisfies(h -> {
                        assertThat(h.holderId()).isEqualTo(one.holderId());
                        assertThat(h.fencingToken()).hasValue(one.fencingToken());
                    });
        }
    }

    @Test
    void aWaiterIsCounted() throws Exception {
        LockClient a = client();
        LockClient b = client();
        CountDownLatch done = new CountDownLatch(1);
        try (LockLease held = a.acquire("w", Duration.ZERO)) {
            Thread waiter = new Thread(() -> {
                try {
                    b.tryAcquire("w", Duration.ofSeconds(30)).ifPresent(LockLease::close);
                } finally {
                    done.countDown();
                }
            });
            waiter.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (a.inspect("w").waiters().orElse(0) < 1 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(a.inspect("w").waiters()).hasValue(1);
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void keysAreCheckedAsAcquireChecksThem() {
        LockClient a = client();
        for (String bad : new String[] {null, " ", "x".repeat(513), "a\uD800"}) {
            String acquireMessage = catchMessage(() -> a.tryAcquire(bad));
            assertThatThrownBy(() -> a.inspect(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(acquireMessage);
        }
    }

    private static String catchMessage(Runnable call) {
        try {
            call.run();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("no IllegalArgumentException");
    }

    @Test
    void inspectionIsReadOnly() {
        LockClient a = client();
        assertThat(a.inspect("ro").held()).isFalse();
        assertThat(server.records("ro")).isZero();
        long first;
        try (LockLease lease = a.acquire("ro", Duration.ZERO)) {
            first = lease.fencingToken();
            a.inspect("ro");
            assertThat(server.records("ro")).isEqualTo(1);
        }
        a.inspect("ro");
        assertThat(server.records("ro")).isZero();
        try (LockLease next = a.acquire("ro", Duration.ZERO)) {
            assertThat(next.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void backendFailuresNameTheKeyAndBackend() {
        LockClient a = client(new Failing(new IllegalStateException("boom")));
        assertThatThrownBy(() -> a.inspect("order:1")).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("order:1").hasMessageContaining("'failing'").hasMessageContaining("boom")
                .satisfies(e -> {
                    assertThat(((LockBackendException) e).key()).isEqualTo("order:1");
                    assertThat(((LockBackendException) e).backend()).isEqualTo("failing");
                });
        server.stop();
        try {
            assertThatThrownBy(() -> client().inspect("order:2")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("order:2");
        } finally {
            server.start();
        }
    }

    @Test
    void aBackendThatCannotInspectSaysSo() {
        LockClient a = client(new Failing(null));
        assertThatThrownBy(() -> a.inspect("k")).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("'failing' cannot inspect keys");
    }

    @Test
    void aClosedClientRefuses() {
        LockClient a = client();
        a.close();
        assertThatThrownBy(() -> a.inspect("k")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aMigrationReportsTheNewStoresTokensAndHoldsOnlyTheOldStoreHas() {
        LocalLockServer old = new LocalLockServer("old");
        LocalLockServer next = new LocalLockServer("next");
        LockClient migrating = client(new MigratingLockBackend(new LocalLockBackend(old), new LocalLockBackend(next)));
        LockClient oldOnly = client(new LocalLockBackend(old));
        try (LockLease lease = migrating.acquire("m", Duration.ZERO)) {
            LockInspection seen = migrating.inspect("m");
            assertThat(seen.holders()).singleElement().satisfies(h -> {
                assertThat(h.holderId()).isEqualTo(lease.holderId());
                assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                assertThat(h.heldByThisClient()).isTrue();
            });
        }
        try (LockLease legacy = oldOnly.acquire("m", Duration.ZERO)) {
            LockInspection seen = migrating.inspect("m");
            assertThat(seen.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(seen.holders()).singleElement().satisfies(h -> {
                assertThat(h.holderId()).isEqualTo(legacy.holderId());
                assertThat(h.fencingToken()).as("the old store's token is not this backend's").isEmpty();
                assertThat(h.heldByThisClient()).isFalse();
            });
        }
        assertThat(migrating.inspect("m").held()).isFalse();
    }

    /** A backend whose inspect fails with {@code failure}, or is not implemented when it is null. */
    private static final class Failing implements LockBackend {
        private final RuntimeException failure;
        private final LocalLockBackend local = LocalLockBackend.create();

        Failing(RuntimeException failure) {
            this.failure = failure;
        }

        public String name() { return "failing"; }
        public BackendGuarantees guarantees() { return local.guarantees(); }
        public Attempt tryAcquire(LockRequest request) { return local.tryAcquire(request); }
        public java.util.Optional<Duration> renew(Grant grant, Duration lease) { return local.renew(grant, lease); }
        public dev.mortise.lock.spi.Renewals renewAll(java.util.Collection<Grant> grants, Duration lease) { return local.renewAll(grants, lease); }
        public boolean release(Grant grant) { return local.release(grant); }
        public void ping() { }
        public void close() { }

        @Override
        public KeyState inspect(String key) {
            if (failure == null) {
                return LockBackend.super.inspect(key);
            }
            throw failure;
        }
    }
}
