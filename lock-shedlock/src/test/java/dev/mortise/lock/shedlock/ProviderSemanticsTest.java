package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.RedisLockBackend;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** What ShedLock's suite does not check: lockAtLeastFor outliving the process, no loss reported, fencing. */
class ProviderSemanticsTest {

    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private final LockClient client = LockClient.builder(redis()).listener(events::add).build();
    private final LockClient otherProcess = LockClient.builder(redis()).build();
    private final MortiseLockProvider provider = new MortiseLockProvider(client);
    private final String name = "shedlock-" + UUID.randomUUID();

    private static RedisLockBackend redis() {
        return RedisLockBackend.builder().address(Servers.redis().address()).build();
    }

    @AfterEach
    void close() {
        provider.close();
        client.close();
        otherProcess.close();
    }

    @Test
    void lockAtLeastForIsKeptOnTheServerAfterTheProcessStopsThenEndsWithoutALoss() throws Exception {
        long start = System.nanoTime();
        SimpleLock lock = provider.lock(config(Duration.ofMinutes(1), Duration.ofMillis(1500))).orElseThrow();
        lock.unlock();
        // The process stops: provider and client go, the hold stays on the server until lockAtLeastFor's instant.
        provider.close();
        client.close();
        assertThat(otherProcess.tryAcquire(name)).describedAs("held until lockAtLeastFor has passed").isEmpty();

        Optional<LockLease> taken = Optional.empty();
        while (taken.isEmpty() && System.nanoTime() - start < Duration.ofSeconds(10).toNanos()) {
            Thread.sleep(50);
            taken = otherProcess.tryAcquire(name);
        }
        long heldNanos = System.nanoTime() - start;
        assertThat(taken).describedAs("free once lockAtLeastFor has passed").isPresent();
        taken.get().close();
        assertThat(Duration.ofNanos(heldNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        assertThat(events).extracting(LockEvent::type).doesNotContain(LockEvent.Type.LOST, LockEvent.Type.ERROR);
    }

    @Test
    void lingeringHoldEndsWithoutALossWhileTheClientLives() throws Exception {
        provider.lock(config(Duration.ofMinutes(1), Duration.ofMillis(300))).orElseThrow().unlock();
        Thread.sleep(600);
        assertThat(provider.lock(config(Duration.ofMinutes(1), Duration.ZERO))).isPresent().get()
                .satisfies(SimpleLock::unlock);
        assertThat(events).extracting(LockEvent::type).doesNotContain(LockEvent.Type.LOST, LockEvent.Type.ERROR);
    }

    @Test
    void everyLockIsANewFencedGrantAndExtendKeepsItsToken() {
        MortiseSimpleLock first = (MortiseSimpleLock) provider.lock(config(Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
        MortiseSimpleLock extended = (MortiseSimpleLock) first.extend(Duration.ofMinutes(2), Duration.ZERO).orElseThrow();
        assertThat(extended.fencingToken()).isEqualTo(first.fencingToken());
        extended.unlock();
        MortiseSimpleLock second = (MortiseSimpleLock) provider.lock(config(Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.unlock();
    }

    private LockConfiguration config(Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }
}
