package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the wait-record contract cannot see on etcd: the records' leases (one per nonce, kept alive
 * by a republish, revoked by the removal, replaced when etcd lost it or the TTL changes), the
 * namespace that separates them, and failures while etcd is away.
 */
@Tag("deadlock")
class EtcdWaitRecordsTest extends EtcdServerPerClass {

    private final List<LockBackend> backends = new ArrayList<>();

    @AfterEach
    void closeBackends() {
        backends.forEach(LockBackend::close);
    }

    private WaitRecords store(String namespace) {
        LockBackend backend = EtcdLockBackend.builder().endpoints(server.endpoint()).namespace(namespace).build();
        backends.add(backend);
        return backend.waitRecords().orElseThrow();
    }

    private WaitRecords store() {
        return store(EtcdTestSupport.NAMESPACE);
    }

    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    private static KeyValue recordKey(String id, String nonce) throws Exception {
        List<KeyValue> kvs = admin.getKVClient().get(ByteSequence.from(EtcdTestSupport.NAMESPACE + "#wait/" + id + "/"
                + nonce, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    /** Publishes {@code id}'s record alone: the lease its key is on. */
    private static long publishOne(WaitRecords store, String id, String nonce, String text, Duration ttl) throws Exception {
        store.publish(List.of(id), nonce, text, ttl);
        return recordKey(id, nonce).getLease();
    }

    /** The lease's remaining TTL; -1 once etcd no longer knows it. */
    private static long ttlOf(long lease) throws Exception {
        return admin.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getTTL();
    }

    private static boolean unknown(long lease) {
        try {
            return ttlOf(lease) == -1;
        } catch (Exception e) {
            throw new AssertionError("reading lease " + lease + " failed", e);
        }
    }

    private static long grantedTtlOf(long lease) throws Exception {
        return admin.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getGrantedTTL();
    }

    @Test
    void aRepublishKeepsTheNoncesOneLeaseAliveAndTheRemovalRevokesIt() throws Exception {
        WaitRecords store = store();
        List<String> ids = List.of(holderId(), holderId());
        Duration applied = store.publish(ids, "n1", "waits", Duration.ofMillis(1500));
        long lease = recordKey(ids.get(0), "n1").getLease();
        assertThat(recordKey(ids.get(1), "n1").getLease()).as("one lease for the nonce").isEqualTo(lease);
        assertThat(applied).as("rounded up to whole seconds, as etcd granted it")
                .isEqualTo(Duration.ofSeconds(grantedTtlOf(lease))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        for (int i = 0; i < 3; i++) {
            assertThat(store.publish(ids, "n1", "still waits", Duration.ofMillis(1500))).isEqualTo(applied);
            assertThat(recordKey(ids.get(0), "n1").getLease()).as("the same lease, kept alive").isEqualTo(lease);
        }
        store.remove(ids.subList(0, 1), "n1");
        assertThat(ttlOf(lease)).as("the lease lives while a record is on it").isPositive();
        assertThat(recordKey(ids.get(1), "n1")).isNotNull();
        store.remove(ids.subList(1, 2), "n1");
        assertThat(ttlOf(lease)).as("revoked with the last record of its nonce").isEqualTo(-1);
        assertThat(etcd.waitRecordKeys(ids)).isZero();
    }

    @Test
    void aNewerNonceReplacesTheRecordAndEachRemovalRevokesItsOwnLease() throws Exception {
        WaitRecords store = store();
        String id = holderId();
        long first = publishOne(store, id, "first", "first", Duration.ofSeconds(30));
        long second = publishOne(store, id, "second", "second", Duration.ofSeconds(30));
        assertThat(recordKey(id, "first")).as("one key per holder id").isNull();
        assertThat(second).isNotEqualTo(first);
        store.remove(List.of(id), "first");
        assertThat(ttlOf(first)).isEqualTo(-1);
        assertThat(store().read(List.of(id))).containsExactly(Map.entry(id, "second"));
        store.remove(List.of(id), "second");
        assertThat(ttlOf(second)).isEqualTo(-1);
        assertThat(etcd.waitRecordKeys(List.of(id))).isZero();
    }

    @Test
    void aLeaseEtcdNoLongerKnowsIsReplacedByTheNextRepublish() throws Exception {
        WaitRecords store = store();
        String id = holderId();
        long lost = publishOne(store, id, "n2", "waits", Duration.ofSeconds(30));
        etcd.revoke(lost); // as an operator, or an expiry while the writer was paused
        assertThat(store.read(List.of(id))).isEmpty();
        long renewed = publishOne(store, id, "n2", "waits again", Duration.ofSeconds(30));
        assertThat(renewed).isNotEqualTo(lost);
        assertThat(store().read(List.of(id))).containsExactly(Map.entry(id, "waits again"));
        store.remove(List.of(id), "n2");
        assertThat(ttlOf(renewed)).isEqualTo(-1);
    }

    @Test
    void anotherTtlMovesTheRecordsToANewLeaseAndRevokesTheOld() throws Exception {
        WaitRecords store = store();
        String id = holderId();
        long shorter = publishOne(store, id, "n3", "waits", Duration.ofSeconds(3));
        assertThat(store.publish(List.of(id), "n3", "waits", Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(20));
        long longer = recordKey(id, "n3").getLease();
        assertThat(longer).isNotEqualTo(shorter);
        assertThat(grantedTtlOf(longer)).isEqualTo(20);
        // revoked in the background once nothing is left on it
        EtcdLockBackendTest.await(Duration.ofSeconds(10), () -> unknown(shorter), "the former lease to be revoked");
        store.remove(List.of(id), "n3");
        assertThat(ttlOf(longer)).isEqualTo(-1);
    }

    @Test
    void theNamespaceSeparatesRecords() throws Exception {
        WaitRecords ours = store();
        WaitRecords theirs = store("another-app/");
        String id = holderId();
        ours.publish(List.of(id), "n4", "ours", Duration.ofSeconds(30));
        assertThat(theirs.read(List.of(id))).isEmpty();
        theirs.remove(List.of(id), "n4");
        assertThat(ours.read(List.of(id))).containsExactly(Map.entry(id, "ours"));
        ours.remove(List.of(id), "n4");
    }

    @Test
    void everyCallFailsAsAnEtcdBackendErrorWhileEtcdIsAway() {
        LockBackend away = EtcdTestSupport.unreachable(Duration.ofMillis(500));
        backends.add(away);
        WaitRecords store = away.waitRecords().orElseThrow();
        List<String> ids = List.of(holderId());
        assertThatThrownBy(() -> store.publish(ids, "n5", "waits", Duration.ofSeconds(2)))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("etcd"));
        assertThatThrownBy(() -> store.read(ids))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("etcd"));
        assertThatThrownBy(() -> store.remove(ids, "n5"))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("etcd"));
    }
}
