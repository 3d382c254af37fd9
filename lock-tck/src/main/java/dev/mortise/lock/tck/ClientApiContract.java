package dev.mortise.lock.tck;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LostReason;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rest of the client API over a backend: force release, {@code call}/{@code run}, the
 * {@link java.util.concurrent.locks.Lock} view, {@link dev.mortise.lock.LockContext}, held locks and
 * the declared guarantees.
 * Run by every {@link LockBackendContractSuite} as its nested {@code ClientApi} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ClientApiContract extends NestedContract {

    ClientApiContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void forceReleaseEndsTheHoldAndFiresOnLost() throws Exception {
        String key = key();
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5)).onLost(lost::set);
        assertThat(a.forceRelease(key)).isTrue();
        assertThat(lost.get()).isNotNull();
        assertThat(lost.get().reason()).isEqualTo(LostReason.FORCE_RELEASED);
        assertThat(lease.isValid()).isFalse();
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
        assertThat(a.forceRelease(key)).isFalse();
    }

    @Test
    void callRunsTheWorkUnderTheLockAndReleases() throws Exception {
        String key = key();
        String result = a.call(key, Duration.ofSeconds(5), () -> {
            assertThat(b.tryAcquire(key)).isEmpty();
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    @Test
    void callPassesCheckedExceptionsThroughAndReleases() {
        String key = key();
        assertThatThrownBy(() -> a.run(key, Duration.ofSeconds(5), () -> {
            throw new IOException("disk full");
        })).isInstanceOf(IOException.class).hasMessage("disk full");
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    @Test
    void lockViewLocksUnlocksAndRefusesForeignUnlock() throws Exception {
        String key = key();
        Lock lock = a.asLock(key);
        lock.lock();
        try {
            assertThat(lock.tryLock()).as("reentrant").isTrue();
            lock.unlock();
            assertThat(b.asLock(key).tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThatThrownBy(() -> CompletableFuture.runAsync(lock::unlock).join())
                    .hasCauseInstanceOf(IllegalMonitorStateException.class);
        } finally {
            lock.unlock();
        }
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        Lock other = b.asLock(key);
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void lockContextShowsTheInnermostLeaseOfTheThread() {
        String outerKey = key("outer");
        String innerKey = key("inner");
        assertThat(LockContext.current()).isEmpty();
        try (LockLease outer = a.acquire(outerKey, Duration.ofSeconds(5))) {
            try (LockLease inner = a.acquire(innerKey, Duration.ofSeconds(5))) {
                assertThat(LockContext.current()).containsSame(inner);
                assertThat(LockContext.find(outerKey)).containsSame(outer);
                assertThat(LockContext.all()).containsExactly(outer, inner);
            }
            assertThat(LockContext.current()).containsSame(outer);
        }
        assertThat(LockContext.current()).isEmpty();
    }

    @Test
    void heldLocksListsOpenHolds() {
        String key = key();
        try (LockLease lease = a.acquire(key, Duration.ofSeconds(5))) {
            List<HeldLock> held = a.heldLocks();
            assertThat(held).hasSize(1);
            assertThat(held.get(0).key()).isEqualTo(key);
            assertThat(held.get(0).fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(held.get(0).renewed()).isTrue();
        }
        assertThat(a.heldLocks()).isEmpty();
    }

    @Test
    void guaranteesAreDeclared() {
        assertThat(a.guarantees().fencing()).isNotBlank();
        assertThat(a.guarantees().minimumLease()).isLessThanOrEqualTo(shortLease());
    }
}
