package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock counts {@code lockAtMostFor} and {@code lockAtLeastFor} from
 * {@link LockConfiguration}'s {@code createdAt} ({@code getLockAtMostUntil()},
 * {@code getLockAtLeastUntil()}), not from the {@code lock} call; so does the provider. A
 * configuration created an hour ago makes the difference plain: counted from {@code lock} the
 * name would stay held for most of an hour, counted from {@code createdAt} it ends at once or
 * within seconds. Another client over the same server observes the end of the hold, as another
 * process would. On the in-process backend here; {@link RedisCreatedAtTest} runs the same on Redis.
 */
class CreatedAtTest {

    /** A bound on waiting for a hold that should end within about two seconds, not a timing check. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final LocalLockServer server = new LocalLockServer();
    private final LockClient client = LockClient.builder(newBackend()).build();
    private final LockClient otherProcess = LockClient.builder(newBackend()).build();
    private final MortiseLockProvider provider = new MortiseLockProvider(client);
    private final String name = "created-at-" + UUID.randomUUID();
    private final Instant anHourAgo = ClockProvider.now().minus(Duration.ofHours(1));

    /** A new backend on the test's server, as a separate process would build it. */
    protected LockBackend newBackend() {
        return new LocalLockBackend(server);
    }

    @AfterEach
    void close() {
        provider.close();
        client.close();
        otherProcess.close();
    }

    @Test
    void lockAtMostForEndsAtCreatedAtPlusLockAtMostFor() throws Exception {
        SimpleLock lock = provider.lock(config(Duration.ofHours(1).plusSeconds(2), Duration.ZERO)).orElseThrow();
        assertThat(freedWithin(PATIENCE)).describedAs("held until createdAt + lockAtMostFor (2 s from now), not an hour")
                .isTrue();
        lock.unlock(); // past lockAtMostFor: quiet, as in ShedLock
    }

    @Test
    void aShortRemainderOfLockAtMostForIsEndedByTheProviderAtItsInstant() throws Exception {
        // 300 ms left: below the provider's shortest server lease, so its timer ends the hold.
        SimpleLock lock = provider.lock(config(Duration.ofHours(1).plusMillis(300), Duration.ZERO)).orElseThrow();
        assertThat(freedWithin(PATIENCE)).describedAs("held until createdAt + lockAtMostFor").isTrue();
        lock.unlock();
    }

    @Test
    void aLockAtMostForAlreadyOverIsGrantedWithItsHoldEndedAsShedLocksStorageProvidersDo() {
        Optional<SimpleLock> lock = provider.lock(config(Duration.ofMinutes(30), Duration.ofMinutes(10)));
        assertThat(lock).describedAs("the name was free: granted, as JdbcTemplateLockProvider grants it").isPresent();
        assertThat(otherTakes()).describedAs("its lockAtMostFor ended before lock() was called: the name is free")
                .isTrue();
        assertThat(lock.get().extend(Duration.ofMinutes(5), Duration.ZERO))
                .describedAs("a lock past its lockAtMostFor cannot be extended").isEmpty();
    }

    @Test
    void aLockAtMostForAlreadyOverIsNotGrantedWhileTheNameIsHeld() {
        try (LockLease held = otherProcess.acquire(name, Duration.ofSeconds(5))) {
            assertThat(provider.lock(config(Duration.ofMinutes(30), Duration.ZERO))).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void aLockAtMostForAlreadyOverUnlocksQuietly() {
        SimpleLock lock = provider.lock(config(Duration.ofMinutes(30), Duration.ZERO)).orElseThrow();
        lock.unlock();
        assertThat(otherTakes()).isTrue();
    }

    @Test
    void lockAtLeastForEndsAtCreatedAtPlusLockAtLeastFor() {
        // lockAtLeastFor (30 min from createdAt) ended half an hour ago: unlock frees the name at once.
        SimpleLock lock = provider.lock(config(Duration.ofHours(2), Duration.ofMinutes(30))).orElseThrow();
        assertThat(otherTakes()).describedAs("held until unlock: lockAtMostFor has an hour to go").isFalse();
        lock.unlock();
        assertThat(otherTakes()).describedAs("lockAtLeastFor is over: unlock releases at once").isTrue();
    }

    @Test
    void theRestOfLockAtLeastForCountsFromCreatedAt() throws Exception {
        SimpleLock lock = provider.lock(config(Duration.ofHours(2), Duration.ofHours(1).plusSeconds(2))).orElseThrow();
        lock.unlock();
        assertThat(freedWithin(PATIENCE)).describedAs("kept until createdAt + lockAtLeastFor (2 s from now), not an hour")
                .isTrue();
    }

    private LockConfiguration config(Duration atMost, Duration atLeast) {
        return new LockConfiguration(anHourAgo, name, atMost, atLeast);
    }

    private boolean otherTakes() {
        Optional<LockLease> taken = otherProcess.tryAcquire(name);
        taken.ifPresent(LockLease::close);
        return taken.isPresent();
    }

    private boolean freedWithin(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (otherTakes()) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }
}
