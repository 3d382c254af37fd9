package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An async acquisition that ends without a grant lets go of its key's local gate before its answer is
 * given: whatever the caller does on that answer (here, at once on the completing thread: ask again
 * with no wait after the holder let go) finds the gate free, not still held by the ending request.
 */
class AsyncGateOrderTest {

    @Test
    void aZeroWaitAskMadeOnAnEmptyAnswerFindsTheGateFree() throws Exception {
        LocalLockServer server = new LocalLockServer("async-gate-order");
        try (LockClient holder = LockClient.builder(new LocalLockBackend(server)).build();
             LockClient waiter = LockClient.builder(new LocalLockBackend(server)).build()) {
            for (int round = 0; round < 50; round++) {
                String key = "gate-order-" + round;
                LockLease held = holder.acquire(key, Duration.ofSeconds(5));
                CompletableFuture<Optional<LockLease>> again = waiter
                        .tryAcquireAsync(LockSpec.of(key).waitFor(Duration.ofMillis(20)))
                        .thenCompose(first -> {
                            assertThat(first).isEmpty();
                            held.close();
                            return waiter.tryAcquireAsync(LockSpec.of(key));
                        });
                Optional<LockLease> second = again.get(30, TimeUnit.SECONDS);
                assertThat(second).as("round %d: a zero-wait ask on the free key, right after the empty answer", round)
                        .isPresent();
                second.get().close();
            }
        }
    }
}
