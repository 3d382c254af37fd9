package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14 leftover: {@code extend} on a hold whose etcd lease is gone (revoked by an
 * operator, expired) reports the loss — {@link LockLostException} and {@code onLost} once —
 * never a {@link LockBackendException}, whether the extend keeps the hold's TTL (a
 * keep-alive) or asks for another (a move to another lease).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLostLeaseExtendTest extends EtcdServerPerClass {

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    private Duration defaultLease = Duration.ofSeconds(30);
    private long pauseAfterRevokeMillis;

    private LockClient client() {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build();
        closeables.add(backend);
        LockClient client = LockClient.builder(backend).defaultLease(defaultLease).build();
        closeables.add(client);
        return client;
    }

    private void extendAfterRevokeReportsLoss(LockSpec spec, Duration extend) throws Exception {
        LockClient client = client();
        // One hold first, so the session lease (or per-lock lease) the lost one was on is cached by the backend.
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        LockLease lease = client.acquire(spec).onLost(lost::add);
        etcd.revokeLeaseOf(lease);
        Thread.sleep(pauseAfterRevokeMillis);
        assertThatThrownBy(() -> lease.extend(extend)).isInstanceOf(LockLostException.class);
        Thread.sleep(300); // onLost runs on the core's notifier: give a second call time to show
        assertThat(lost).as("onLost calls").hasSize(1);
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
        // The key is free again, and this client can take it.
        client.tryAcquire(spec.key()).orElseThrow().close();
    }

    private static String key() {
        return "etcd-lost-extend:" + UUID.randomUUID();
    }

    @Test
    void renewedHoldExtendedWithItsOwnLease() throws Exception {
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)), Duration.ofSeconds(30));
    }

    @Test
    void renewedHoldExtendedWithAnotherLease() throws Exception {
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)), Duration.ofSeconds(20));
    }

    @Test
    void explicitLeaseExtendedWithItsOwnLease() throws Exception {
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)).lease(Duration.ofSeconds(20)),
                Duration.ofSeconds(20));
    }

    @Test
    void explicitLeaseExtendedWithAnotherLease() throws Exception {
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)).lease(Duration.ofSeconds(20)),
                Duration.ofSeconds(40));
    }

    @Test
    void renewedHoldExtendedAfterAnotherHoldOnTheSameSessionWasExtended() throws Exception {
        LockClient client = client();
        // A second hold keeps the session of the extend's TTL cached in the backend; then that session is revoked.
        LockLease other = client.acquire(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)));
        other.extend(Duration.ofSeconds(20));
        etcd.revokeLeaseOf(other);
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)), Duration.ofSeconds(20));
    }

    @Test
    void shortSessionFoundGoneByItsOwnKeepAliveFirst() throws Exception {
        defaultLease = Duration.ofSeconds(3);
        pauseAfterRevokeMillis = 1500;
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)), Duration.ofSeconds(3));
    }

    @Test
    void shortSessionFoundGoneByItsOwnKeepAliveFirstThenExtendedElsewhere() throws Exception {
        defaultLease = Duration.ofSeconds(3);
        pauseAfterRevokeMillis = 1500;
        extendAfterRevokeReportsLoss(LockSpec.of(key()).waitFor(Duration.ofSeconds(5)), Duration.ofSeconds(7));
    }
}
