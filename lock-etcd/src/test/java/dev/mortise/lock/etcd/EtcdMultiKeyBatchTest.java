package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.etcd.EtcdLockBackendTest.await;
import static dev.mortise.lock.etcd.RequestCountTest.perOperation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LockClient#acquireAll} on a real single-member etcd through {@code tryAcquireAll}: the
 * requests it costs, counted by the server ({@code grpc_server_msg_received_total} by method), and
 * all-or-nothing when a part is busy, looked at in etcd's own key space. Counts are exact, not
 * timed; leases are long (30 s), so no renewal runs while a count is taken, except at most one
 * session keep-alive tick, which the counts allow for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdMultiKeyBatchTest extends EtcdServerPerClass {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Keys of every shape, any first character: the batch must encode them as a single acquire does. */
    private static final String[] KEY_FORMS = {"batch:%s", "ä/%s", "{%s}", "%s", "読み書き %s", "a/b#%s",
            "\uD83D\uDD12%s", "/%s", "%%2F%s", "$%s"};

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String run = UUID.randomUUID().toString();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private EtcdLockBackend backend() {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build();
        closeables.add(backend);
        return backend;
    }

    /** A client whose session lease of the default lease already exists (granted by a warm-up acquire). */
    private LockClient client() {
        LockClient client = LockClient.builder(backend()).defaultLease(LEASE).build();
        closeables.add(client);
        client.acquire("warm-up:" + UUID.randomUUID(), Duration.ofSeconds(5)).close();
        return client;
    }

    private List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(String.format(KEY_FORMS[i % KEY_FORMS.length], run + ":" + i));
        }
        return keys;
    }

    private Map<String, Long> requests() {
        return EtcdMetrics.messagesReceived(server.endpoint());
    }

    /** Requests sent since {@code before}, by gRPC method, without the one session keep-alive that may tick. */
    private Map<String, Double> since(Map<String, Long> before) {
        Map<String, Double> sent = perOperation(before, requests(), 1);
        sent.remove("Range"); // this test's own reads of the key space
        assertThat(sent.getOrDefault("LeaseKeepAlive", 0.0)).as("session keep-alive ticks").isLessThanOrEqualTo(1);
        sent.remove("LeaseKeepAlive");
        return sent;
    }

    /** The owner stored in the single key under {@code key}'s prefix, or null if there is none. */
    private static String holder(String key) throws Exception {
        List<KeyValue> kvs = etcd.keysOf(key);
        assertThat(kvs.size()).as("keys under " + key).isLessThanOrEqualTo(1);
        return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
    }

    /** How many keys are under {@code key}'s prefix (for polling). */
    private static int keysUnder(String key) {
        try {
            return etcd.keysOf(key).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** What etcd records of each key under {@code key}'s prefix (KeyValue has no equals). */
    private static List<String> records(String key) throws Exception {
        return etcd.keysOf(key).stream().map(kv -> kv.getKey().toString(StandardCharsets.UTF_8) + " = "
                + kv.getValue().toString(StandardCharsets.UTF_8) + " created " + kv.getCreateRevision() + " modified "
                + kv.getModRevision() + " lease " + kv.getLease()).toList();
    }

    private static String owner() {
        return "owner-" + UUID.randomUUID();
    }

    // ---- round trips -------------------------------------------------------------------------------

    @Test
    void anUncontendedAcquireAllOfManyKeysIsOneTransaction() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(10);
        Map<String, Long> before = requests();
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).waitFor(Duration.ofSeconds(5)))) {
            assertThat(since(before)).as("requests for 10 renewed keys on the existing session")
                    .isEqualTo(Map.of("Txn", 1.0));
            for (String key : keys) {
                List<KeyValue> kvs = etcd.keysOf(key);
                assertThat(kvs).as(key).hasSize(1);
                assertThat(kvs.get(0).getCreateRevision()).as("token of " + key).isEqualTo(all.fencingToken(key));
            }
        }
        for (String key : keys) {
            assertThat(etcd.keysOf(key)).as("released: " + key).isEmpty();
        }
    }

    @Test
    void anExplicitLeaseAcquireAllIsOneLeaseGrantPerKeySentTogetherAndOneTransaction() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(5);
        Map<String, Long> before = requests();
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(LEASE).waitFor(Duration.ofSeconds(5)))) {
            assertThat(since(before)).as("requests for 5 explicit-lease keys")
                    .isEqualTo(Map.of("Txn", 1.0, "LeaseGrant", 5.0));
            long leases = keys.stream().mapToLong(key -> {
                try {
                    return etcd.keysOf(key).get(0).getLease();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).distinct().count();
            assertThat(leases).as("each explicit-lease hold on a lease of its own").isEqualTo(5);
        }
        for (String key : keys) {
            assertThat(etcd.keysOf(key)).as("released: " + key).isEmpty();
        }
    }

    @Test
    void sharedAndExclusivePartsGoInTheSameTransaction() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        String x = String.format(KEY_FORMS[1], run + ":x");
        String r = String.format(KEY_FORMS[2], run + ":r");
        Map<String, Long> before = requests();
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(List.of(x)).shared(r))) {
            assertThat(since(before)).isEqualTo(Map.of("Txn", 1.0));
            try (LockLease reader = other.acquire(LockSpec.of(r).shared().lease(LEASE))) {
                assertThat(reader.fencingToken()).as("a reader joins the batch's shared part")
                        .isGreaterThan(all.fencingToken(r));
            }
            assertThat(other.tryAcquire(x)).isEmpty();
            assertThat(other.tryAcquire(r)).as("a writer waits for the batch's reader").isEmpty();
        }
        try (LockLease writer = other.acquire(LockSpec.of(r).lease(LEASE))) {
            assertThat(writer.isValid()).isTrue();
        }
    }

    @Test
    void aSharedPartIsRefusedWhileAWriterWaitsBehindAReader() throws Exception {
        EtcdLockBackend mine = backend();
        EtcdLockBackend other = backend();
        String r = String.format(KEY_FORMS[4], run + ":r");
        String free = String.format(KEY_FORMS[0], run + ":free");
        Grant reader = other.tryAcquire(new LockRequest(r, owner(), LEASE, true, LockMode.SHARED)).grant()
                .orElseThrow();
        // with only a reader, a shared part is admitted
        List<Grant> admitted = mine.tryAcquireAll(List.of(new LockRequest(free, owner(), LEASE, true),
                new LockRequest(r, owner(), LEASE, true, LockMode.SHARED)));
        assertThat(admitted).hasSize(2);
        admitted.forEach(mine::release);

        CompletableFuture<Grant> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return other.acquire(new LockRequest(r, owner(), LEASE, true), Duration.ofSeconds(60)).orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await(Duration.ofSeconds(10), () -> keysUnder(r) == 2, "the writer queued behind the reader");
        List<String> queued = records(r);

        List<Grant> refused = mine.tryAcquireAll(List.of(new LockRequest(free, owner(), LEASE, true),
                new LockRequest(r, owner(), LEASE, true, LockMode.SHARED)));
        assertThat(refused).as("a waiting writer keeps the batch's reader out").isEmpty();
        assertThat(etcd.keysOf(free)).as("nothing of the batch left on the free key").isEmpty();
        assertThat(records(r)).as("the reader and the waiting writer, untouched").isEqualTo(queued);
        assertThat(writer).isNotDone();

        other.release(reader);
        Grant written = writer.get(60, TimeUnit.SECONDS);
        assertThat(written.fencingToken()).isGreaterThan(reader.fencingToken());
        other.release(written);
    }

    // ---- all or nothing ----------------------------------------------------------------------------

    @Test
    void aRefusedBatchCostsOneMoreTransactionAndLeavesNothingOnTheServer() throws Exception {
        EtcdLockBackend mine = backend();
        EtcdLockBackend other = backend();
        List<String> keys = keys(4);
        String busy = keys.get(2);
        Grant holder = other.tryAcquire(new LockRequest(busy, owner(), LEASE, true)).grant().orElseThrow();
        List<String> held = records(busy);
        // the session lease of this backend exists before the count
        mine.release(mine.tryAcquire(new LockRequest("warm-up:" + run, owner(), LEASE, true)).grant().orElseThrow());

        List<LockRequest> requests = keys.stream().map(key -> new LockRequest(key, owner(), LEASE, true)).toList();
        Map<String, Long> before = requests();
        assertThat(mine.tryAcquireAll(requests)).isEmpty();
        assertThat(since(before)).as("the batch's transaction, then one transaction deleting what it put")
                .isEqualTo(Map.of("Txn", 2.0));
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(etcd.keysOf(key)).as("nothing of the batch left: " + key).isEmpty();
            }
        }
        assertThat(records(busy)).as("the busy holder is untouched").isEqualTo(held);
        assertThat(other.renew(holder, LEASE)).isPresent();
        other.release(holder);

        // explicit leases: the refusal revokes the leases it was granted, which takes their keys
        Grant again = other.tryAcquire(new LockRequest(busy, owner(), LEASE, false)).grant().orElseThrow();
        List<LockRequest> explicit = keys.stream().map(key -> new LockRequest(key, owner(), LEASE, false)).toList();
        before = requests();
        assertThat(mine.tryAcquireAll(explicit)).isEmpty();
        assertThat(since(before)).isEqualTo(Map.of("LeaseGrant", 4.0, "Txn", 1.0, "LeaseRevoke", 4.0));
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(etcd.keysOf(key)).as("nothing of the batch left: " + key).isEmpty();
            }
        }
        assertThat(etcd.keysOf(busy)).hasSize(1);
        assertThat(other.release(again)).isTrue();
    }

    @Test
    void aBusyPartLeavesNothingOnTheServerAndTheWaitThenGetsEveryKey() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        List<String> keys = keys(4);
        String busy = keys.get(2);
        LockLease holder = other.acquire(LockSpec.of(busy).lease(LEASE));
        String holderOwner = holder(busy);

        assertThat(locks.tryAcquireAll(keys)).isEmpty();
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(etcd.keysOf(key)).as("nothing of the batch left: " + key).isEmpty();
            }
        }
        assertThat(holder(busy)).as("the busy holder is untouched").isEqualTo(holderOwner);
        assertThat(holder.isValid()).isTrue();

        CompletableFuture<MultiLease> waiting = CompletableFuture.supplyAsync(
                () -> locks.acquireAll(keys, Duration.ofSeconds(60)));
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        long token = holder.fencingToken();
        holder.close();
        try (MultiLease all = waiting.get(60, TimeUnit.SECONDS)) {
            assertThat(all.keys()).containsExactlyInAnyOrderElementsOf(keys);
            assertThat(all.fencingToken(busy)).isGreaterThan(token);
            for (String key : keys) {
                assertThat(etcd.keysOf(key)).as(key).hasSize(1);
            }
        }
        for (String key : keys) {
            assertThat(etcd.keysOf(key)).as(key).isEmpty();
        }
    }

    @Test
    void aPartAlreadyHeldByTheCallersOwnerIsNestedThroughTheOrderedPath() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(3);
        try (LockLease outer = locks.acquire(LockSpec.of(keys.get(1)).lease(LEASE))) {
            Map<String, Long> before = requests();
            try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys))) {
                assertThat(since(before)).as("the two other keys, one by one").isEqualTo(Map.of("Txn", 2.0));
                assertThat(all.fencingToken(keys.get(1))).isEqualTo(outer.fencingToken());
            }
            assertThat(etcd.keysOf(keys.get(1))).as("the outer lease still holds its key").hasSize(1);
            assertThat(outer.isValid()).isTrue();
        }
        assertThat(etcd.keysOf(keys.get(1))).isEmpty();
    }

    // ---- batch grants are ordinary grants -----------------------------------------------------------

    @Test
    void batchGrantsAreStampedBeforeTheRequestAndCarryTheirKeysRevision() throws Exception {
        EtcdLockBackend backend = backend();
        List<String> keys = keys(KEY_FORMS.length);
        List<LockRequest> requests = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            requests.add(new LockRequest(keys.get(i), owner(), LEASE, true, i % 2 == 0 ? LockMode.EXCLUSIVE
                    : LockMode.SHARED));
        }
        long sentAfter = System.nanoTime();
        List<Grant> grants = backend.tryAcquireAll(requests);
        long answeredBefore = System.nanoTime();
        assertThat(grants).hasSize(keys.size());
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            LockRequest request = requests.get(i);
            assertThat(grant.key()).isEqualTo(request.key());
            assertThat(grant.owner()).isEqualTo(request.owner());
            assertThat(grant.requestedAtNanos()).isBetween(sentAfter, answeredBefore);
            List<KeyValue> kvs = etcd.keysOf(request.key());
            assertThat(kvs).as("the key under the same prefix a single acquire uses: " + request.key()).hasSize(1);
            assertThat(kvs.get(0).getCreateRevision()).isEqualTo(grant.fencingToken());
            assertThat(kvs.get(0).getValue().toString(StandardCharsets.UTF_8)).isEqualTo(request.owner());
            KeyState state = backend.inspect(request.key());
            assertThat(state.holders()).singleElement().satisfies(h -> {
                assertThat(h.owner()).isEqualTo(request.owner());
                assertThat(h.fencingToken()).hasValue(grant.fencingToken());
            });
        }
        // a later single grant of the key takes a higher token
        assertThat(backend.release(grants.get(0))).isTrue();
        Grant next = backend.tryAcquire(new LockRequest(keys.get(0), owner(), LEASE, true)).grant().orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(grants.get(0).fencingToken());
        backend.release(next);

        assertThat(backend.renewAll(grants.subList(1, grants.size()), LEASE).gone()).as("renewed together").isEmpty();
        assertThat(backend.renew(grants.get(1), Duration.ofSeconds(40))).as("moved to a longer lease")
                .contains(Duration.ofSeconds(40));
        for (Grant grant : grants.subList(1, grants.size())) {
            assertThat(backend.release(grant)).as(grant.key()).isTrue();
            assertThat(etcd.keysOf(grant.key())).isEmpty();
        }
        assertThat(backend.release(grants.get(0))).as("released before").isFalse();
    }

    @Test
    void explicitLeaseBatchGrantsExpireWithTheirLeases() throws Exception {
        EtcdLockBackend backend = backend();
        EtcdLockBackend other = backend();
        List<String> keys = keys(3);
        Duration shortLease = Duration.ofSeconds(2);
        List<Grant> grants = backend.tryAcquireAll(keys.stream()
                .map(key -> new LockRequest(key, owner(), shortLease, false)).toList());
        assertThat(grants).hasSize(3);
        for (String key : keys) {
            await(Duration.ofSeconds(15), () -> keysUnder(key) == 0, "the hold of " + key + " expired");
        }
        assertThat(backend.renew(grants.get(0), shortLease)).as("an expired hold is not renewed").isEmpty();
        for (String key : keys) {
            Grant taken = other.tryAcquire(new LockRequest(key, owner(), LEASE, true)).grant().orElseThrow();
            other.release(taken);
        }
    }

    @Test
    void aSessionRevokedUnderTheBatchIsReportedLostForEveryPart() throws Exception {
        EtcdLockBackend backend = backend();
        List<Grant> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        backend.addGrantListener(new dev.mortise.lock.spi.GrantListener() {
            @Override
            public void suspended(Grant grant) {
            }

            @Override
            public void restored(Grant grant) {
            }

            @Override
            public void lost(Grant grant, Throwable cause) {
                lost.add(grant);
            }
        });
        List<Grant> grants = backend.tryAcquireAll(keys(3).stream()
                .map(key -> new LockRequest(key, owner(), LEASE, true)).toList());
        assertThat(grants).hasSize(3);
        etcd.revoke(etcd.keysOf(grants.get(0).key()).get(0).getLease());
        assertThat(backend.renewAll(grants, LEASE).gone()).containsExactlyInAnyOrderElementsOf(grants);
        await(Duration.ofSeconds(10), () -> lost.size() == 3, "every part reported lost");
    }

    @Test
    void aBatchWhoseAnswerNeverCameLeavesNothingOnceTheServerThaws() throws Exception {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint()))
                .operationTimeout(Duration.ofSeconds(1)).build();
        closeables.add(backend);
        // the session lease exists: the renewed batch goes straight to its transaction
        backend.release(backend.tryAcquire(new LockRequest("warm-up:" + run, owner(), LEASE, true)).grant()
                .orElseThrow());
        List<String> renewed = keys(3);
        List<String> explicit = keys(6).subList(3, 6);
        server.pause();
        try {
            // these requests reach the frozen server and are applied when it thaws, long after the calls gave up
            assertThatThrownBy(() -> backend.tryAcquireAll(renewed.stream()
                    .map(key -> new LockRequest(key, owner(), LEASE, true)).toList()))
                    .isInstanceOf(LockBackendException.class).hasMessageContaining("etcd");
            assertThatThrownBy(() -> backend.tryAcquireAll(explicit.stream()
                    .map(key -> new LockRequest(key, owner(), LEASE, false)).toList()))
                    .isInstanceOf(LockBackendException.class).hasMessageContaining("etcd");
        } finally {
            server.resume();
        }
        // the late transaction's keys are fenced off and deleted, the late leases revoked, in the background
        List<String> all = new ArrayList<>(renewed);
        all.addAll(explicit);
        for (String key : all) {
            await(Duration.ofSeconds(15), () -> keysUnder(key) == 0, "nothing left of the batch on " + key);
        }
        Thread.sleep(1000);
        for (String key : all) {
            assertThat(etcd.keysOf(key)).as(key).isEmpty();
        }
        List<Grant> again = backend.tryAcquireAll(all.stream().map(key -> new LockRequest(key, owner(), LEASE, true))
                .toList());
        assertThat(again).hasSize(all.size());
        again.forEach(backend::release);
    }

    // ---- what the batch does not take ---------------------------------------------------------------

    @Test
    void moreKeysThanOneTransactionMayCarryGoTheOrderedWay() throws Exception {
        EtcdLockBackend backend = backend();
        List<LockRequest> requests = keys(65).stream().map(key -> new LockRequest(key, owner(), LEASE, true))
                .toList();
        Map<String, Long> before = requests();
        assertThat(backend.tryAcquireAll(requests)).as("no native batch: etcd's default --max-txn-ops is 128").isNull();
        assertThat(since(before)).as("nothing sent").isEmpty();
        // 64 parts fit
        List<Grant> grants = backend.tryAcquireAll(requests.subList(0, 64));
        assertThat(grants).hasSize(64);
        grants.forEach(backend::release);
    }

    @Test
    void anUnreachableServerThrows() {
        try (EtcdLockBackend unreachable = EtcdTestSupport.unreachable(Duration.ofSeconds(1))) {
            assertThatThrownBy(() -> unreachable.tryAcquireAll(List.of(new LockRequest("a" + run, owner(), LEASE, true),
                    new LockRequest("b" + run, owner(), LEASE, true))))
                    .isInstanceOf(LockBackendException.class);
            assertThatThrownBy(() -> unreachable.tryAcquireAll(List.of(new LockRequest("a" + run, owner(), LEASE, false),
                    new LockRequest("b" + run, owner(), LEASE, false))))
                    .isInstanceOf(LockBackendException.class);
        }
    }
}
