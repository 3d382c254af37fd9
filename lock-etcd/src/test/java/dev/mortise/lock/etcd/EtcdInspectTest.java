package dev.mortise.lock.etcd;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.etcd.EtcdLockBackendTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EtcdLockBackend#inspect} against a real single-member etcd: free keys, exclusive
 * holds on session and per-lock leases, readers, waiters, release, expiry, keys of every
 * shape, and that inspecting writes nothing (etcd's revision does not move, so no later
 * token is affected). No timing bounds beyond the lease itself.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdInspectTest extends EtcdServerPerClass {

    private static final Duration LEASE = Duration.ofSeconds(10);
    /** etcd TTLs are whole seconds, rounded up: what etcd reports is at most the lease rounded up. */
    private static final Duration TOLERANCE = Duration.ofSeconds(1);
    private static final String[] KEY_FORMS = {"inspect:%s", "/%s", "#%s", "$%s", "%%%s", " %s", "ä/%s",
            "読み書き %s", "\uD83D\uDD12%s", "~%s"};

    private final List<EtcdLockBackend> backends = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeBackends() {
        backends.forEach(EtcdLockBackend::close);
    }

    private EtcdLockBackend backend() {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build();
        backends.add(backend);
        return backend;
    }

    private static String owner() {
        return UUID.randomUUID() + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static LockRequest request(String key, LockMode mode, boolean renewed) {
        return new LockRequest(key, owner(), LEASE, renewed, mode);
    }

    private static Grant granted(Attempt attempt) {
        return attempt.grant().orElseThrow(() -> new AssertionError("expected a grant, the lock was busy"));
    }

    private static long clusterRevision() throws Exception {
        return admin.getKVClient().get(ByteSequence.from(new byte[] {0})).get(10, TimeUnit.SECONDS).getHeader()
                .getRevision();
    }

    private static void assertHolder(KeyState.Holder holder, Grant grant, Duration lease) {
        assertThat(holder.owner()).isEqualTo(grant.owner());
        assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
        assertThat(holder.remaining()).isPresent();
        assertThat(holder.remaining().get()).isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(lease.plus(TOLERANCE));
    }

    @Test
    void aFreeKeyIsFreeWithNoWaiters() {
        KeyState state = backend().inspect("inspect-free:" + UUID.randomUUID());
        assertThat(state.held()).isFalse();
        assertThat(state).isEqualTo(KeyState.free(OptionalInt.of(0)));
    }

    @Test
    void anExclusiveHoldOnEachKindOfLeaseShowsItsOwnerTokenAndRemainingTtl() throws Exception {
        EtcdLockBackend backend = backend();
        for (String form : KEY_FORMS) {
            for (boolean renewed : new boolean[] {true, false}) {
                String key = String.format(form, UUID.randomUUID());
                Grant grant = granted(backend.tryAcquire(request(key, LockMode.EXCLUSIVE, renewed)));

                long before = clusterRevision();
                KeyState state = backend.inspect(key);
                assertThat(clusterRevision()).as("inspect writes nothing").isEqualTo(before);

                assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
                assertThat(state.holders()).hasSize(1);
                assertHolder(state.holders().get(0), grant, LEASE);
                assertThat(state.waiters()).hasValue(0);
                assertThat(etcd.keysOf(key)).hasSize(1);

                assertThat(backend.release(grant)).isTrue();
                assertThat(backend.inspect(key)).isEqualTo(KeyState.free(OptionalInt.of(0)));
                assertThat(etcd.keysOf(key)).isEmpty();
            }
        }
    }

    @Test
    void readersAreOneHolderEachAndAWaitingWriterAndTheReaderBehindItAreWaiters() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = String.format(KEY_FORMS[6], UUID.randomUUID());
        Grant r1 = granted(a.tryAcquire(request(key, LockMode.SHARED, true)));
        Grant r2 = granted(b.tryAcquire(request(key, LockMode.SHARED, false)));
        Grant r3 = granted(a.tryAcquire(request(key, LockMode.SHARED, true)));

        KeyState readers = b.inspect(key);
        assertThat(readers.mode()).isEqualTo(LockMode.SHARED);
        assertThat(readers.holders()).hasSize(3);
        assertHolder(readers.holders().get(0), r1, LEASE);
        assertHolder(readers.holders().get(1), r2, LEASE);
        assertHolder(readers.holders().get(2), r3, LEASE);
        assertThat(readers.waiters()).hasValue(0);

        CompletableFuture<Optional<Grant>> writer = waitFor(b, request(key, LockMode.EXCLUSIVE, true));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 4, "the writer queued");
        CompletableFuture<Optional<Grant>> lateReader = waitFor(a, request(key, LockMode.SHARED, true));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 5, "the late reader queued");

        KeyState queued = a.inspect(key);
        assertThat(queued.mode()).isEqualTo(LockMode.SHARED);
        assertThat(queued.holders()).extracting(KeyState.Holder::owner)
                .containsExactly(r1.owner(), r2.owner(), r3.owner());
        assertThat(queued.waiters()).as("the writer and the reader behind it").hasValue(2);

        a.release(r1);
        b.release(r2);
        a.release(r3);
        Grant w = writer.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState writing = a.inspect(key);
        assertThat(writing.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertHolder(writing.holders().get(0), w, LEASE);
        assertThat(writing.waiters()).hasValue(1);

        b.release(w);
        Grant late = lateReader.get(20, TimeUnit.SECONDS).orElseThrow();
        KeyState last = b.inspect(key);
        assertThat(last.mode()).isEqualTo(LockMode.SHARED);
        assertHolder(last.holders().get(0), late, LEASE);
        assertThat(last.waiters()).hasValue(0);
        a.release(late);
        assertThat(a.inspect(key).held()).isFalse();
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    @Test
    void anExpiredHoldIsFree() throws Exception {
        EtcdLockBackend backend = backend();
        String key = String.format(KEY_FORMS[2], UUID.randomUUID());
        Duration lease = Duration.ofSeconds(2);
        Grant grant = granted(backend.tryAcquire(new LockRequest(key, owner(), lease, false)));
        KeyState held = backend.inspect(key);
        assertThat(held.holders()).hasSize(1);
        assertThat(held.holders().get(0).fencingToken()).hasValue(grant.fencingToken());
        // etcd's minimum TTL is 2 s with the launcher's election timeout; it revokes expired leases within 500 ms.
        await(Duration.ofSeconds(15), () -> !backend.inspect(key).held(), "the hold to expire");
        assertThat(backend.inspect(key)).isEqualTo(KeyState.free(OptionalInt.of(0)));
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    @Test
    void inspectingBetweenGrantsLeavesTheTokenOrderAlone() throws Exception {
        EtcdLockBackend backend = backend();
        String key = String.format(KEY_FORMS[1], UUID.randomUUID());
        Grant first = granted(backend.tryAcquire(request(key, LockMode.EXCLUSIVE, false)));
        backend.release(first);
        long before = clusterRevision();
        for (int i = 0; i < 5; i++) {
            backend.inspect(key);
        }
        assertThat(clusterRevision()).isEqualTo(before);
        Grant second = granted(backend.tryAcquire(request(key, LockMode.EXCLUSIVE, false)));
        assertThat(second.fencingToken()).isEqualTo(before + 1).isGreaterThan(first.fencingToken());
        backend.release(second);
    }

    private static CompletableFuture<Optional<Grant>> waitFor(EtcdLockBackend backend, LockRequest request) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return backend.acquire(request, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        }, runnable -> {
            Thread thread = new Thread(runnable, "inspect-test-waiter");
            thread.setDaemon(true);
            thread.start();
        });
    }

    private static int keyCount(String key) {
        try {
            return etcd.keysOf(key).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
