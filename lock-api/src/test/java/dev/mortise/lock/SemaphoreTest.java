package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The slot fallback ({@code SlotSemaphore}) on the in-process backend with its native semaphores
 * turned off ({@link SlotsOnly}): slots, all-or-nothing, no nesting, count changes. The native
 * semaphore of the same backend is {@link NativeSemaphoreTest}'s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreTest {

    private final LocalLockServer server = new LocalLockServer();
    private final List<LockClient> clients = new ArrayList<>();
    private final LockClient a = client();
    private final LockClient b = client();

    private LockClient client() {
        LockClient client = LockClient.builder(new SlotsOnly(new LocalLockBackend(server)))
                .defaultLease(Duration.ofMillis(600)).build();
        clients.add(client);
        return client;
    }

    /** A backend without native semaphores: {@link LockClient#semaphore} takes the slot fallback. */
    static final class SlotsOnly extends dev.mortise.lock.spi.ForwardingLockBackend {
        SlotsOnly(dev.mortise.lock.spi.LockBackend delegate) {
            super(delegate);
        }

        @Override
        public boolean supportsPermits() {
            return false;
        }
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    private int slotsHeld(String name, int slots) {
        return (int) IntStream.range(0, slots).filter(i -> server.isHeld(name + "#permit-" + i)).count();
    }

    private int records(String name, int slots) {
        return IntStream.range(0, slots).map(i -> server.records(name + "#permit-" + i)).sum();
    }

    @Test
    void atMostPermitsAreHeldAndEachPermitIsASlotKey() {
        LockSemaphore sa = a.semaphore("jobs", 2);
        LockSemaphore sb = b.semaphore("jobs", 2);
        PermitLease first = sa.tryAcquire().orElseThrow();
        PermitLease second = sb.tryAcquire().orElseThrow();
        assertThat(sa.tryAcquire()).isEmpty();
        assertThat(sb.tryAcquire()).isEmpty();
        assertThat(List.of(first.slots().get(0), second.slots().get(0))).containsExactlyInAnyOrder(0, 1);
        assertThat(first.parts().get(0).key()).isEqualTo("jobs#permit-" + first.slots().get(0));
        assertThat(first.count()).isEqualTo(1);
        assertThat(first.fencingTokens()).hasSize(1);
        assertThat(first.isValid()).isTrue();
        assertThat(slotsHeld("jobs", 2)).isEqualTo(2);
        first.close();
        first.close(); // idempotent
        assertThat(first.isValid()).isFalse();
        try (PermitLease third = sb.tryAcquire().orElseThrow()) {
            assertThat(third.slots()).isEqualTo(first.slots());
            assertThat(third.fencingTokens().get(0)).isGreaterThan(first.fencingTokens().get(0));
        }
        second.close();
        assertThat(records("jobs", 2)).isZero();
    }

    @Test
    void nPermitsAreAllOrNothing() {
        LockSemaphore sem = a.semaphore("batch", 3);
        PermitLease one = sem.acquire(Duration.ofSeconds(1));
        PermitLease two = sem.acquire(Duration.ofSeconds(1));
        LockSemaphore other = b.semaphore("batch", 3);
        assertThat(other.tryAcquire(2, Duration.ofMillis(300))).isEmpty();
        assertThatThrownBy(() -> other.acquire(2, Duration.ofMillis(300))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("batch").hasMessageContaining("None is held");
        assertThat(b.heldLocks()).as("the timed-out caller holds no slot").isEmpty();
        assertThat(slotsHeld("batch", 3)).isEqualTo(2);
        one.close();
        try (PermitLease both = other.acquire(2, Duration.ofSeconds(1))) {
            assertThat(both.count()).isEqualTo(2);
            assertThat(both.slots()).doesNotHaveDuplicates().isSorted();
            assertThat(both.parts()).extracting(LockLease::key).doesNotHaveDuplicates();
        }
        two.close();
        assertThat(records("batch", 3)).isZero();
    }

    @Test
    void permitsDoNotNest() {
        LockSemaphore sem = a.semaphore("single", 1);
        try (PermitLease held = sem.acquire(Duration.ofSeconds(1))) {
            assertThat(sem.tryAcquire()).as("a second acquire by the same thread takes another permit").isEmpty();
            assertThat(held.parts().get(0).holdCount()).isEqualTo(1);
        }
        LockSemaphore two = a.semaphore("double", 2);
        try (PermitLease x = two.acquire(Duration.ofSeconds(1)); PermitLease y = two.acquire(Duration.ofSeconds(1))) {
            assertThat(x.slots()).doesNotContainAnyElementsOf(y.slots());
        }
    }

    @Test
    void aWaiterIsGrantedWhenAPermitIsReleased() throws Exception {
        PermitLease held = a.semaphore("wait", 1).acquire(Duration.ofSeconds(1));
        AtomicReference<PermitLease> got = new AtomicReference<>();
        Thread waiter = new Thread(() -> got.set(b.semaphore("wait", 1).acquire(Duration.ofSeconds(20))));
        waiter.start();
        Thread.sleep(300);
        assertThat(got.get()).isNull();
        held.close();
        waiter.join(10_000);
        assertThat(got.get()).isNotNull();
        got.get().close();
    }

    @Test
    void anExplicitLeaseExpiresAndFreesThePermit() throws Exception {
        PermitLease held = a.semaphore("expl", 1).acquire(1, Duration.ZERO, Duration.ofMillis(300));
        LockSemaphore other = b.semaphore("expl", 1);
        PermitLease next = other.acquire(Duration.ofSeconds(10));
        assertThat(held.isValid()).isFalse();
        next.close();
        assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void raisingTakesEffectAtOnceAndLoweringLetsHoldersFinish() {
        List<PermitLease> three = new ArrayList<>();
        LockSemaphore wide = a.semaphore("count", 3);
        for (int i = 0; i < 3; i++) {
            three.add(wide.acquire(Duration.ofSeconds(1)));
        }
        // lowered to 1: the holders of slots 1 and 2 keep their permits
        LockSemaphore narrow = b.semaphore("count", 1);
        PermitLease slot0 = three.stream().filter(p -> p.slots().equals(List.of(0))).findFirst().orElseThrow();
        for (PermitLease p : three) {
            if (p != slot0) {
                assertThat(p.isValid()).isTrue();
                p.close();
            }
        }
        assertThat(narrow.tryAcquire()).as("slots at or above the lowered count are not handed out").isEmpty();
        slot0.close();
        PermitLease only = narrow.tryAcquire().orElseThrow();
        assertThat(only.slots()).containsExactly(0);
        // raised to 2: the new slot is available at once
        LockSemaphore raised = b.semaphore("count", 2);
        try (PermitLease extra = raised.tryAcquire().orElseThrow()) {
            assertThat(extra.slots()).containsExactly(1);
        }
        only.close();
    }

    @Test
    void theFirstLostPermitIsOneLossOfTheWhole() throws Exception {
        PermitLease both = a.semaphore("lost", 2).acquire(2, Duration.ofSeconds(1));
        AtomicInteger told = new AtomicInteger();
        CountDownLatch lost = new CountDownLatch(1);
        both.onLost(e -> {
            told.incrementAndGet();
            lost.countDown();
        });
        a.forceRelease("lost#permit-0");
        a.forceRelease("lost#permit-1");
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(told).hasValue(1);
        assertThat(both.isValid()).isFalse();
        assertThatThrownBy(both::ensureValid).isInstanceOf(LockLostException.class);
        AtomicInteger late = new AtomicInteger();
        both.onLost(e -> late.incrementAndGet());
        assertThat(late).as("a listener added after the loss is told at once").hasValue(1);
        assertThatThrownBy(both::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void anInterruptedWaitThrowsAndHoldsNothing() throws Exception {
        PermitLease held = a.semaphore("intr", 1).acquire(Duration.ofSeconds(1));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                b.semaphore("intr", 1).acquire(Duration.ofSeconds(30));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        waiter.start();
        Thread.sleep(300);
        waiter.interrupt();
        waiter.join(5000);
        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(b.heldLocks()).isEmpty();
        held.close();
        assertThat(records("intr", 1)).isZero();
    }

    @Test
    void argumentsAreChecked() {
        assertThatThrownBy(() -> a.semaphore(" ", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.semaphore(null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.semaphore("x", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'x'");
        LockSemaphore sem = a.semaphore("x", 2);
        assertThat(sem.slotKey(1)).isEqualTo("x#permit-1");
        assertThatThrownBy(() -> sem.acquire(0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sem.acquire(3, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 2");
        assertThatThrownBy(() -> sem.tryAcquire(1, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sem.acquire(1, Duration.ZERO, null)).isInstanceOf(IllegalArgumentException.class);
        LockSemaphore tooLong = a.semaphore("n".repeat(600), 1);
        assertThatThrownBy(tooLong::tryAcquire).as("slot keys over the client's key limit")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(a.heldLocks()).isEmpty();
    }
}
