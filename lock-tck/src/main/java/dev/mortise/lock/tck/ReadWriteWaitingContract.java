package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read-write contract's waiting part, run by every backend's contract test through the
 * {@code @Nested} class {@code LockBackendContractSuite.ReadWriteWaiting}: a waiting writer is not
 * starved by readers, releases wake the right waiters, a writer that gave up holds nobody back,
 * timed-out and interrupted requests leave nothing behind, and shared holds are lost, renewed and
 * ended by their lease like exclusive ones. On a backend without shared mode every test asserts
 * the clear refusal instead ({@link ReadWriteContract}); nothing is skipped.
 */
abstract class ReadWriteWaitingContract extends SharedModeContract {

    ReadWriteWaitingContract(LockBackendContractSuite contract) {
        super(contract);
    }

    // ---- waiting and writer preference ---------------------------------------------------

    /**
     * Readers of two clients keep the key held shared without a gap (each takes its next share
     * before giving up the last one, waiting at most a moment for it); a writer of a third
     * client must still get in: once it waits, new shares queue behind it.
     */
    @Test
    void aWaitingWriterIsNotStarvedByAStreamOfReaders() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readsAfterWriter = new AtomicInteger();
        AtomicBoolean writerDone = new AtomicBoolean();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch reading = new CountDownLatch(2);
        for (LockClient client : List.of(a, b)) {
            start("reader", () -> {
                String owner = "reader-" + System.identityHashCode(client);
                int n = 0;
                LockLease current = null;
                try {
                    while (!stop.get()) {
                        Optional<LockLease> next = client.tryAcquire(
                                LockSpec.of(key).shared().owner(owner + "-" + n++).waitFor(Duration.ofMillis(200)));
                        if (next.isPresent() && writerDone.get()) {
                            readsAfterWriter.incrementAndGet();
                        }
                        if (current != null) {
                            current.close(); // the next share (if any) is taken first: no gap
                        }
                        current = next.orElse(null);
                        reading.countDown();
                        Thread.sleep(20);
                    }
                } catch (InterruptedException | dev.mortise.lock.LockInterruptedException e) {
                    // stopped
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    if (current != null) {
                        current.close();
                    }
                }
            });
        }
        LockClient writerClient = contract.newClient();
        try {
            assertThat(reading.await(30, TimeUnit.SECONDS)).as("readers started").isTrue();
            Thread.sleep(200);
            try (LockLease writer = writerClient.acquire(exclusive(key, Duration.ofSeconds(60)))) {
                assertThat(writer.isValid()).isTrue();
                assertThat(writer.mode()).isEqualTo(LockMode.EXCLUSIVE);
            }
            writerDone.set(true);
            LockBackendContractSuite.await(Duration.ofSeconds(30), () -> readsAfterWriter.get() > 0,
                    "readers get in again after the writer");
        } finally {
            stop.set(true);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void theLastReaderLeavingWakesAWaitingWriterAndAWriterLeavingWakesEveryWaitingReader() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        LockClient c = contract.newClient();
        LockLease one = a.acquire(shared(key, WAIT));
        LockLease two = b.acquire(shared(key, WAIT));
        AtomicReference<LockLease> writer = new AtomicReference<>();
        Thread w = start("writer", () -> writer.set(c.acquire(exclusive(key, Duration.ofSeconds(60)))));
        Thread.sleep(300);
        one.close();
        Thread.sleep(300);
        assertThat(writer.get()).as("one reader still holds").isNull();
        two.close();
        w.join(LockBackendContractSuite.SLACK.toMillis());
        assertThat(writer.get()).as("writer granted once the last reader left").isNotNull();
        AtomicReference<LockLease> readerA = new AtomicReference<>();
        AtomicReference<LockLease> readerB = new AtomicReference<>();
        Thread ra = start("reader-a", () -> readerA.set(a.acquire(shared(key, Duration.ofSeconds(60)))));
        Thread rb = start("reader-b", () -> readerB.set(b.acquire(shared(key, Duration.ofSeconds(60)))));
        Thread.sleep(300);
        assertThat(readerA.get()).isNull();
        assertThat(readerB.get()).isNull();
        LockLease heldByWriter = writer.get();
        onOtherThread(() -> {
            heldByWriter.close();
            return null;
        });
        ra.join(LockBackendContractSuite.SLACK.toMillis());
        rb.join(LockBackendContractSuite.SLACK.toMillis());
        assertThat(readerA.get()).as("reader of a woken").isNotNull();
        assertThat(readerB.get()).as("reader of b woken").isNotNull();
        assertThat(readerA.get().isValid() && readerB.get().isValid()).as("both readers hold together").isTrue();
        onOtherThread(() -> {
            readerA.get().close();
            readerB.get().close();
            return null;
        });
        assertThat(contract.residueOnServer(key)).isZero();
    }

    @Test
    void aWriterThatGaveUpNoLongerHoldsReadersBack() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease reader = a.acquire(shared(key, WAIT))) {
            assertThat(b.tryAcquire(exclusive(key, Duration.ofMillis(400)))).as("writer times out").isEmpty();
            assertThat(contract.newClient().tryAcquire(shared(key, Duration.ZERO)))
                    .as("a new reader right after the writer gave up").hasValueSatisfying(LockLease::close);
            assertThat(reader.isValid()).isTrue();
        }
        assertThat(contract.residueOnServer(key)).isZero();
    }

    // ---- leaving nothing behind ----------------------------------------------------------

    @Test
    void timedOutAndInterruptedReadersAndWritersLeaveNothingBehind() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        LockClient c = contract.newClient();
        try (LockLease writer = a.acquire(exclusive(key, WAIT))) {
            assertThat(b.tryAcquire(shared(key, Duration.ofMillis(300)))).as("reader times out").isEmpty();
            assertThat(interruptWhileWaiting(() -> c.acquire(shared(key, Duration.ofSeconds(60)))))
                    .isInstanceOf(LockInterruptedException.class);
            assertThat(writer.isValid()).isTrue();
        }
        assertThat(contract.residueOnServer(key)).as("after a timed-out and an interrupted reader").isZero();
        try (LockLease reader = a.acquire(shared(key, WAIT))) {
            assertThat(b.tryAcquire(exclusive(key, Duration.ofMillis(300)))).as("writer times out").isEmpty();
            assertThat(interruptWhileWaiting(() -> c.acquire(exclusive(key, Duration.ofSeconds(60)))))
                    .isInstanceOf(LockInterruptedException.class);
            assertThat(reader.isValid()).isTrue();
        }
        assertThat(contract.residueOnServer(key)).as("after a timed-out and an interrupted writer").isZero();
        assertThat(b.tryAcquire(key)).as("the next writer is not blocked").hasValueSatisfying(LockLease::close);
        assertThat(c.tryAcquire(shared(key, Duration.ZERO))).as("the interrupted client reads again")
                .hasValueSatisfying(LockLease::close);
    }

    // ---- losses and crashes --------------------------------------------------------------

    @Test
    void aSharedHoldBrokenOnTheServerFiresOnLost() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        LockLease lease = a.acquire(shared(key, WAIT));
        AtomicInteger lost = new AtomicInteger();
        AtomicReference<LockLostEvent> event = new AtomicReference<>();
        lease.onLost(e -> {
            event.set(e);
            lost.incrementAndGet();
        });
        contract.breakHold(lease);
        LockBackendContractSuite.await(Duration.ofSeconds(5).plus(contract.watchdogLease().multipliedBy(2)),
                () -> lost.get() > 0, "onLost of the broken shared hold");
        assertThat(lease.isValid()).isFalse();
        assertThat(event.get().key()).isEqualTo(key);
        assertThatThrownBy(lease::ensureValid).isInstanceOf(dev.mortise.lock.LockLostException.class);
        Thread.sleep(200);
        assertThat(lost.get()).as("onLost fires once").isEqualTo(1);
        try {
            lease.close();
        } catch (dev.mortise.lock.LockLostException expected) {
            // closing a lost lease reports the loss
        }
        assertThat(b.tryAcquire(exclusive(key, WAIT))).hasValueSatisfying(LockLease::close);
    }

    @Test
    void theWatchdogKeepsSharedHoldsPastTheirLease() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease one = a.acquire(shared(key, WAIT)); LockLease two = b.acquire(shared(key, WAIT))) {
            Thread.sleep(contract.watchdogLease().multipliedBy(3).toMillis());
            assertThat(one.isValid() && two.isValid()).as("both shares renewed").isTrue();
            assertThat(contract.newClient().tryAcquire(key)).isEmpty();
        }
    }

    @Test
    void aCrashedReadersShareEndsWithItsLease() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        Duration lease = contract.shortLease();
        LockLease abandoned = a.acquire(shared(key, WAIT).lease(lease)); // never closed: its process "crashed"
        LockLease kept = b.acquire(shared(key, WAIT));
        kept.close();
        long start = System.nanoTime();
        try (LockLease writer = contract.newClient().acquire(
                exclusive(key, lease.plus(LockBackendContractSuite.SLACK).plus(LockBackendContractSuite.SLACK)))) {
            assertThat(writer.isValid()).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(lease.plus(LockBackendContractSuite.SLACK.multipliedBy(2)));
        assertThat(abandoned.isValid()).isFalse();
    }
}
