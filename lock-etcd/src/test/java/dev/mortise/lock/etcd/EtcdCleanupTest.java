package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.etcd.EtcdLockBackendTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clean-up that must keep trying until etcd confirms it: a waiter on a lease of its own that
 * fails while etcd is down revokes that lease, and the revoke has to reach etcd once it is
 * back, or the waiter's key blocks the lock for the whole lease (etcd restores leases with
 * their full TTL on restart). jetcd's wait-for-ready already holds a single revoke until the
 * member is back; the backend's own retries also cover a revoke etcd answers with an error
 * (no leader during an election). Has its own server, since it stops and restarts it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdCleanupTest extends EtcdServerPerClass {

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient client(Duration operationTimeout) {
        LockClient client = LockClient.builder(EtcdTestSupport.backend(List.of(server.endpoint()))
                .operationTimeout(operationTimeout).build()).defaultLease(Duration.ofSeconds(30)).build();
        clients.add(client);
        return client;
    }

    @Test
    void aWaiterThatFailsWhileEtcdIsDownLeavesNoKeyOnItsOwnLeaseOnceEtcdIsBack() throws Exception {
        String key = "etcd-cleanup:" + UUID.randomUUID();
        LockLease held = client(Duration.ofSeconds(5)).acquire(key, Duration.ofSeconds(5));
        LockClient waiter = client(Duration.ofSeconds(1));
        // An explicit 30 s lease: the waiter looks again every 10 s, and its key lives 30 s unless revoked.
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(
                () -> waiter.acquire(LockSpec.of(key).lease(Duration.ofSeconds(30)).waitFor(Duration.ofSeconds(60))));
        await(Duration.ofSeconds(5), () -> keyCount(key) == 2, "the waiter queued");

        server.stop();
        try {
            // The waiter's next look fails; it revokes its lease, which cannot reach etcd now.
            assertThat(waiting).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(LockBackendException.class);
            Thread.sleep(3_000); // longer than jetcd's own retries of the revoke (the operation timeout)
        } finally {
            server.start();
        }
        // etcd restores leases with their full TTL on restart: only a revoke that reaches it removes the key.
        await(Duration.ofSeconds(12), () -> keyCount(key) == 1, "the failed waiter's key to be revoked once etcd is back");
        assertThat(etcd.keysOf(key).get(0).getCreateRevision()).isEqualTo(held.fencingToken());
        held.close();
        assertThat(etcd.keysOf(key)).isEmpty();
    }

    private static int keyCount(String key) {
        try {
            return etcd.keysOf(key).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
