package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.migration.MigratingLockBackend;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration backend against the whole contract (two in-process stores), and the point of
 * it: during a rolling deploy it excludes clients still on the old store only, and clients
 * already on the new store only.
 */
class MigratingLocalContractTest extends LockBackendContractSuite {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    private final LocalLockServer oldStore = new LocalLockServer("old");
    private final LocalLockServer newStore = new LocalLockServer("new");

    @Override
    protected LockBackend newBackend() {
        return new MigratingLockBackend(new LocalLockBackend(oldStore), new LocalLockBackend(newStore));
    }

    @Override
    protected void breakHold(LockLease lease) {
        newStore.forget(lease.key());
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        LocalLockServer stopped = new LocalLockServer("stopped");
        stopped.stop();
        return new MigratingLockBackend(new LocalLockBackend(oldStore), new LocalLockBackend(stopped));
    }

    @Override
    protected int residueOnServer(String key) {
        return oldStore.records(key) + newStore.records(key);
    }

    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) {
        return oldStore.waitRecords(holderIds) + newStore.waitRecords(holderIds);
    }

    @Test
    void excludesClientsOnTheOldStoreAndOnTheNewStoreAndReportsTheNewStoresTokens() throws Exception {
        String key = key();
        LockClient migrating = newClient();
        LockClient oldOnly = track(LockClient.builder(new LocalLockBackend(oldStore)).build());
        LockClient newOnly = track(LockClient.builder(new LocalLockBackend(newStore)).build());

        LockLease held = migrating.acquire(key, Duration.ofSeconds(1));
        assertThat(oldOnly.tryAcquire(key)).as("an instance still on the old version").isEmpty();
        assertThat(newOnly.tryAcquire(key)).as("an instance already on the next version").isEmpty();
        held.close();
        assertThat(residueOnServer(key)).isZero();

        try (LockLease old = oldOnly.acquire(key, Duration.ofSeconds(1))) {
            assertThat(migrating.tryAcquire(key)).isEmpty();
            assertThat(newStore.isHeld(key)).as("a refused migration leaves nothing in the new store").isFalse();
        }
        long newToken;
        try (LockLease next = newOnly.acquire(key, Duration.ofSeconds(1))) {
            newToken = next.fencingToken();
            assertThat(migrating.tryAcquire(key)).isEmpty();
            assertThat(oldStore.isHeld(key)).as("the old half is given back when the new store is busy").isFalse();
        }
        Optional<LockLease> again = migrating.tryAcquire(key);
        assertThat(again).hasValueSatisfying(l -> assertThat(l.fencingToken()).isGreaterThan(newToken));
        again.get().close();
    }
}
