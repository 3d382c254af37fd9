package dev.mortise.lock.internal;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code LockClient.asLock(LockSpec)}: its lease and mode, and the one per-thread stack it shares with the other views. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockViewSpecTest {

    @Test
    void anExplicitLeaseViewExpiresWhenNotRenewed() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Lock view = client.asLock(LockSpec.of("k").lease(Duration.ofMillis(300)));
            view.lock();
            assertThat(only(client).renewed()).as("an explicit lease is not renewed").isFalse();
            assertThat(otherThreadGets(client.asLock("k"))).as("held while the lease lasts").isFalse();
            // Not unlocked, not renewed: the hold ends when its lease runs out.
            assertThat(inOtherThread(() -> unlockAfter(client.asLock("k").tryLock(30, TimeUnit.SECONDS),
                    client.asLock("k")))).isTrue();
            assertThatThrownBy(view::unlock).as("the lease closed by unlock was lost")
                    .isInstanceOf(LockLostException.class).hasMessageContaining("'k'");
            assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }
    }

    @Test
    void aViewWithoutAnExplicitLeaseIsRenewed() throws Exception {
        // renewed every second; over two leases pass, so a stall shorter than two thirds of the lease cannot end it
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).defaultLease(Duration.ofSeconds(3))
                .build()) {
            Lock view = client.asLock(LockSpec.of("k"));
            view.lock();
            try {
                assertThat(only(client).renewed()).isTrue();
                Thread.sleep(7000);
                assertThat(otherThreadGets(client.asLock("k"))).as("renewed past its lease").isFalse();
            } finally {
                view.unlock();
            }
            assertThat(otherThreadGets(client.asLock("k"))).isTrue();
        }
    }

    @Test
    void specViewsAndAsLockOfOneKeyAreOneReentrantLock() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Lock plain = client.asLock("k");
            Lock explicit = client.asLock(LockSpec.of("k").lease(Duration.ofSeconds(30)));
            plain.lock();
            assertThat(explicit.tryLock()).as("nested in the thread's hold").isTrue();
            HeldLock hold = only(client);
            assertThat(hold.holdCount()).isEqualTo(2);
            assertThat(hold.renewed()).as("the hold keeps the lease it was taken with").isTrue();
            plain.unlock(); // closes the innermost lease, the one the explicit view took
            assertThat(otherThreadGets(explicit)).as("still held after one unlock").isFalse();
            explicit.unlock();
            assertThat(client.heldLocks()).isEmpty();
            assertThat(otherThreadGets(plain)).isTrue();

            explicit.lock();
            plain.lock();
            assertThat(only(client).holdCount()).isEqualTo(2);
            assertThat(only(client).renewed()).as("taken afresh with the spec's lease").isFalse();
            explicit.unlock();
            explicit.unlock();
            assertThat(client.heldLocks()).isEmpty();
            assertThatThrownBy(plain::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }
    }

    @Test
    void unlockFromAThreadThatDoesNotHoldItThrows() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Lock view = client.asLock(LockSpec.of("k").lease(Duration.ofSeconds(30)));
            assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("'k'");
            view.lock();
            try {
                Throwable thrown = inOtherThread(() -> {
                    try {
                        client.asLock(LockSpec.of("k").lease(Duration.ofSeconds(30))).unlock();
                        return null;
                    } catch (IllegalMonitorStateException e) {
                        return e;
                    }
                });
                assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'k'");
                assertThat(otherThreadGets(view)).as("still held by its owner").isFalse();
            } finally {
                view.unlock();
            }
        }
    }

    @Test
    void aSharedSpecViewIsTheReadLockOfTheKey() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Lock read = client.asLock(LockSpec.of("k").shared().lease(Duration.ofSeconds(30)));
            assertThat(read.tryLock()).isTrue();
            assertThat(inOtherThread(() -> unlockAfter(read.tryLock(), read))).as("readers coexist").isTrue();
            assertThat(otherThreadGets(client.asLock("k"))).as("a writer is excluded").isFalse();
            assertThatThrownBy(client.asLock("k")::tryLock).as("no upgrade").isInstanceOf(IllegalStateException.class);
            client.readWriteLock("k").readLock().unlock();
            assertThatThrownBy(read::unlock).as("one stack per key and mode")
                    .isInstanceOf(IllegalMonitorStateException.class);
            assertThat(otherThreadGets(client.asLock("k"))).isTrue();
        }
    }

    @Test
    void theSpecsWaitIsIgnoredAndAnOwnerIsRefused() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Lock patient = client.asLock(LockSpec.of("k").waitFor(Duration.ofHours(1)));
            client.asLock("k").lock();
            try {
                assertThat(inOtherThread(() -> patient.tryLock())).as("tryLock() does not wait").isFalse();
                assertThat(inOtherThread(() -> patient.tryLock(50, TimeUnit.MILLISECONDS))).isFalse();
            } finally {
                client.asLock("k").unlock();
            }
            assertThatThrownBy(() -> client.asLock(LockSpec.of("k").owner("job-7")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'k'")
                    .hasMessageContaining("job-7");
            assertThatThrownBy(() -> client.asLock((LockSpec) null)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static HeldLock only(LockClient client) {
        assertThat(client.heldLocks()).hasSize(1);
        return client.heldLocks().get(0);
    }

    /** Whether another thread gets {@code lock} at once (released again if it did). */
    private static boolean otherThreadGets(Lock lock) throws Exception {
        return inOtherThread(() -> unlockAfter(lock.tryLock(), lock));
    }

    private static boolean unlockAfter(boolean locked, Lock lock) {
        if (locked) {
            lock.unlock();
        }
        return locked;
    }

    /** Runs {@code work} on a fresh thread (a view's ownership is the thread's). */
    private static <T> T inOtherThread(Callable<T> work) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            return other.submit(work).get(40, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
    }
}
