package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.WaitRecords;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wait record on the server means its owner is still blocked in its acquire: when the removal of a
 * granted wait's record fails, the acquire returns only once the record has expired on the server.
 */
class WaitRecordRemovalTest {

    /** The server's store, whose removals fail as if the server were away. */
    private static final class FailingRemovals extends ForwardingLockBackend {
        final AtomicInteger removals = new AtomicInteger();

        FailingRemovals(LocalLockServer server) {
            super(new LocalLockBackend(server));
        }

        @Override
        public Optional<WaitRecords> waitRecords() {
            WaitRecords store = super.waitRecords().orElseThrow();
            return Optional.of(new WaitRecords() {
                @Override
                public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
                    return store.publish(holderIds, nonce, text, ttl);
                }

                @Override
                public void remove(Collection<String> holderIds, String nonce) {
                    removals.incrementAndGet();
                    throw new LockBackendException("removal refused for the test", null, "local", null);
                }

                @Override
                public Map<String, String> read(Collection<String> holderIds) {
                    return store.read(holderIds);
                }
            });
        }
    }

    @Test
    void aGrantedWaitWhoseRecordCannotBeRemovedReturnsOnlyOnceTheRecordExpired() throws Exception {
        LocalLockServer server = new LocalLockServer("removals");
        FailingRemovals failing = new FailingRemovals(server);
        DeadlockDetection detection = DeadlockDetection.after(Duration.ofMillis(50)).every(Duration.ofMillis(100));
        try (LockClient waiter = LockClient.builder(failing).deadlockDetection(detection).build();
             LockClient other = LockClient.builder(new LocalLockBackend(server)).build()) {
            LockLease blocker = other.acquire("wanted", Duration.ofSeconds(5));
            CompletableFuture<Integer> recordsAtReturn = new CompletableFuture<>();
            CompletableFuture<String> holderId = new CompletableFuture<>();
            Thread owner = new Thread(() -> {
                try (LockLease held = waiter.acquire("held", Duration.ofSeconds(5))) {
                    holderId.complete(held.holderId());
                    try (LockLease got = waiter.acquire(LockSpec.of("wanted").waitFor(Duration.ofSeconds(30)))) {
                        recordsAtReturn.complete(server.waitRecords(List.of(held.holderId())));
                    }
                } catch (Throwable e) {
                    recordsAtReturn.completeExceptionally(e);
                }
            });
            owner.start();
            String id = holderId.get(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.waitRecords(List.of(id)) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.waitRecords(List.of(id))).as("the long wait's record, published").isEqualTo(1);
            blocker.close();
            assertThat(recordsAtReturn.get(30, TimeUnit.SECONDS)).as("records of the owner when its acquire returned")
                    .isZero();
            assertThat(failing.removals.get()).as("the removal was tried").isPositive();
            owner.join(10_000);
        }
    }
}
