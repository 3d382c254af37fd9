package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two registries over one client are two lock owners, as two Spring Integration registries
 * are: a thread that holds a key through one registry does not re-enter it through the other
 * (nor through the client's own API), while it still re-enters through the registry it locked with.
 */
class TwoRegistriesTest {

    private final LockClient client = LockClient.builder(new LocalLockBackend(new LocalLockServer())).build();
    private final MortiseLockRegistry first = new MortiseLockRegistry(client);
    private final MortiseLockRegistry second = new MortiseLockRegistry(client);
    private final String key = "two-registries-" + UUID.randomUUID();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aSecondRegistryOnTheSameThreadDoesNotReenterTheFirstsHold() throws Exception {
        DistributedLock mine = first.obtain(key);
        DistributedLock theirs = second.obtain(key);
        mine.lock();
        try {
            assertThat(theirs.tryLock()).as("tryLock through the other registry while the first holds").isFalse();
            assertThat(theirs.tryLock(50, TimeUnit.MILLISECONDS)).as("tryLock(time) through the other registry")
                    .isFalse();
            assertThat(mine.tryLock()).as("the registry that locked still re-enters").isTrue();
            mine.unlock();
        } finally {
            mine.unlock();
        }
        assertThat(theirs.tryLock()).as("free once the first registry unlocked").isTrue();
        try {
            assertThat(mine.tryLock()).as("and now the first registry is the other owner").isFalse();
        } finally {
            theirs.unlock();
        }
    }

    @Test
    void theClientsOwnAcquireOnTheSameThreadDoesNotReenterARegistrysHold() {
        DistributedLock lock = first.obtain(key);
        lock.lock();
        try {
            Optional<LockLease> lease = client.tryAcquire(key);
            lease.ifPresent(LockLease::close);
            assertThat(lease).as("the calling thread's own hold is not the registry's").isEmpty();
        } finally {
            lock.unlock();
        }
        try (LockLease lease = client.acquire(key, Duration.ofSeconds(5))) {
            assertThat(lock.tryLock()).as("nor is the registry's the thread's").isFalse();
        }
    }
}
