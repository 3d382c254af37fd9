package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read-write (shared/exclusive) part of the contract, run by every backend's contract test
 * through the {@code @Nested} class {@code LockBackendContractSuite.ReadWrite}: no new file per
 * backend. It uses the enclosing test's clients {@code a} and {@code b}, its backend factory and
 * its hooks ({@code breakHold}, {@code residueOnServer}).
 *
 * <p>On a backend whose {@link LockBackend#supportsSharedMode()} is false, every test asserts the
 * contract that applies there instead: the core refuses each shared request clearly (a
 * {@link dev.mortise.lock.LockException} naming key, backend and {@code supportsSharedMode}),
 * nothing is left on the server and exclusive holds still work. Nothing is skipped.
 */
public abstract class ReadWriteContract extends NestedContract {


    protected ReadWriteContract(LockBackendContractSuite contract) {
        super(contract);
    }

    /** Whether the backend under test grants shared requests. */
    protected boolean sharedSupported() {
        return contract.supportsSharedMode();
    }

    /**
     * On a backend without shared mode, the contract is the clear refusal: asserts it and
     * returns true (the caller then has nothing more to check). False where shared mode is
     * supported. Never a skip: every test of this suite asserts something on every backend.
     */
    protected boolean refusedClearlyWhereUnsupported() {
        if (sharedSupported()) {
            return false;
        }
        String key = key();
        assertThatThrownBy(() -> a.acquire(shared(key, Duration.ofSeconds(1))))
                .isInstanceOf(LockException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("'" + a.backendName() + "'")
                .hasMessageContaining("supportsSharedMode");
        assertThatThrownBy(() -> a.readWriteLock(key).readLock().tryLock()).isInstanceOf(LockException.class);
        try {
            assertThat(contract.residueOnServer(key)).as("a refused shared request leaves nothing").isZero();
        } catch (Exception e) {
            throw new AssertionError("could not count what is left on the server for '" + key + "'", e);
        }
        try (LockLease exclusive = a.acquire(key, WAIT)) {
            assertThat(exclusive.mode()).isEqualTo(LockMode.EXCLUSIVE);
        }
        return true;
    }

    protected static LockSpec shared(String key, Duration wait) {
        return LockSpec.of(key).shared().waitFor(wait);
    }

    protected static LockSpec exclusive(String key, Duration wait) {
        return LockSpec.of(key).waitFor(wait);
    }

    private Thread start(String name, Runnable body) {
        return startThread("tck-rw-" + name, body);
    }

    private static final Duration WAIT = Duration.ofSeconds(10);

    // ---- the one test every backend runs -------------------------------------------------

    @Test
    void sharedRequestsAreGrantedOrRefusedClearly() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease one = a.acquire(shared(key, WAIT)); LockLease two = b.acquire(shared(key, WAIT))) {
            assertThat(one.mode()).isEqualTo(LockMode.SHARED);
            assertThat(two.mode()).isEqualTo(LockMode.SHARED);
            assertThat(one.isValid()).isTrue();
            assertThat(two.isValid()).isTrue();
        }
    }

    // ---- coexistence and exclusion -------------------------------------------------------

    @Test
    void readersOfTwoClientsCoexistAndExcludeWriters() {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease one = a.acquire(shared(key, WAIT)); LockLease two = b.acquire(shared(key, WAIT))) {
            assertThat(one.isValid() && two.isValid()).as("both readers valid together").isTrue();
            assertThat(runElsewhere(() -> b.tryAcquire(key))).as("a writer of client b (another thread)").isEmpty();
            assertThat(runElsewhere(() -> a.tryAcquire(key))).as("a writer of client a (another thread)").isEmpty();
        }
        try (LockLease writer = b.acquire(key, WAIT)) {
            assertThat(a.tryAcquire(shared(key, Duration.ZERO))).as("a reader while a writer holds").isEmpty();
            assertThat(runElsewhere(() -> b.tryAcquire(shared(key, Duration.ZERO))))
                    .as("a reader of the writer's client (another thread)").isEmpty();
            assertThat(writer.isValid()).isTrue();
        }
        assertThat(a.tryAcquire(shared(key, Duration.ZERO))).hasValueSatisfying(LockLease::close);
    }

    @Test
    void threadsOfOneClientHoldAKeySharedTogetherEachWithItsOwnToken() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease mine = a.acquire(shared(key, WAIT))) {
            LockLease other = onOtherThread(() -> a.acquire(shared(key, WAIT)));
            try {
                assertThat(other.fencingToken()).as("each shared hold is granted on its own")
                        .isNotEqualTo(mine.fencingToken());
                assertThat(other.holdCount()).isEqualTo(1);
                assertThat(mine.isValid() && other.isValid()).isTrue();
                assertThat(b.tryAcquire(key)).isEmpty();
            } finally {
                onOtherThread(() -> {
                    other.close();
                    return null;
                });
            }
            assertThat(b.tryAcquire(key)).as("one reader still holds").isEmpty();
        }
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
    }

    /**
     * Readers of three clients and several threads each, writers among them: writers are alone,
     * readers are never inside with a writer, and readers did overlap (so a backend that quietly
     * treats shared requests as exclusive fails here).
     */
    @Test
    void fuzzedReadersOverlapAndWritersAreAlone() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        List<LockClient> clients = List.of(a, b, contract.newClient());
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger peakReaders = new AtomicInteger();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        int threadsPerClient = 3;
        int rounds = 20;
        CountDownLatch done = new CountDownLatch(clients.size() * threadsPerClient);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (LockClient client : clients) {
            for (int t = 0; t < threadsPerClient; t++) {
                boolean writerThread = t == 0;
                start("fuzz", () -> {
                    try {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < rounds; i++) {
                            boolean write = writerThread && random.nextInt(3) == 0;
                            if (write) {
                                try (LockLease lease = client.acquire(exclusive(key, Duration.ofSeconds(60)))) {
                                    int writers = writersInside.incrementAndGet();
                                    int readers = readersInside.get();
                                    Thread.sleep(random.nextInt(3));
                                    if ((writers != 1 || readers != 0) && lease.isValid()) {
                                        violations.add("writer inside with " + (writers - 1) + " writer(s), "
                                                + readers + " reader(s)");
                                    }
                                    writersInside.decrementAndGet();
                                    writes.incrementAndGet();
                                }
                            } else {
                                try (LockLease lease = client.acquire(shared(key, Duration.ofSeconds(60)))) {
                                    int readers = readersInside.incrementAndGet();
                                    peakReaders.accumulateAndGet(readers, Math::max);
                                    Thread.sleep(10 + random.nextInt(20));
                                    if (writersInside.get() != 0 && lease.isValid()) {
                                        violations.add("reader inside with a writer");
                                    }
                                    peakReaders.accumulateAndGet(readersInside.get(), Math::max);
                                    readersInside.decrementAndGet();
                                    reads.incrementAndGet();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        done.countDown();
                    }
                });
            }
        }
        assertThat(done.await(100, TimeUnit.SECONDS)).as("fuzz finished").isTrue();
        assertThat(failures).isEmpty();
        assertThat(violations).as("exclusion violations").isEmpty();
        assertThat(reads.get() + writes.get()).isEqualTo(clients.size() * threadsPerClient * rounds);
        assertThat(peakReaders.get()).as("most readers inside at once: shared holds must overlap").isGreaterThan(1);
        assertThat(contract.residueOnServer(key)).isZero();
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

    // ---- reentrancy ----------------------------------------------------------------------

    @Test
    void readInsideWriteNestsAndWriteInsideReadIsRefused() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        try (LockLease write = a.acquire(exclusive(key, WAIT))) {
            try (LockLease read = a.acquire(shared(key, Duration.ZERO))) {
                assertThat(read.fencingToken()).as("nested in the write hold").isEqualTo(write.fencingToken());
                assertThat(read.mode()).as("a read inside a write is on the exclusive hold")
                        .isEqualTo(LockMode.EXCLUSIVE);
                assertThat(write.holdCount()).isEqualTo(2);
                write.close();
                assertThat(b.tryAcquire(shared(key, Duration.ZERO)))
                        .as("the key stays exclusive until the nested read closes too").isEmpty();
            }
        }
        assertThat(b.tryAcquire(shared(key, Duration.ZERO))).hasValueSatisfying(LockLease::close);

        try (LockLease read = a.acquire(shared(key, WAIT))) {
            try (LockLease again = a.acquire(shared(key, Duration.ZERO))) {
                assertThat(again.fencingToken()).as("read inside read nests").isEqualTo(read.fencingToken());
                assertThat(read.holdCount()).isEqualTo(2);
            }
            assertThatThrownBy(() -> a.acquire(exclusive(key, WAIT)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(key).hasMessageContaining("upgrad").hasMessageContaining("forever");
            assertThatThrownBy(() -> a.tryAcquire(key)).isInstanceOf(IllegalStateException.class);
            assertThat(read.isValid()).as("the refused upgrade leaves the read hold as it was").isTrue();
            assertThat(read.holdCount()).isEqualTo(1);
        }
        assertThat(contract.residueOnServer(key)).isZero();
    }

    @Test
    void explicitOwnersNestAndAreRefusedUpgradesFromAnyThread() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        LockLease read = a.acquire(LockSpec.of(key).shared().owner("job-1").waitFor(WAIT));
        LockLease nested = onOtherThread(() -> a.acquire(LockSpec.of(key).shared().owner("job-1")));
        assertThat(nested.fencingToken()).isEqualTo(read.fencingToken());
        assertThatThrownBy(() -> onOtherThread(() -> a.acquire(LockSpec.of(key).owner("job-1"))))
                .hasCauseInstanceOf(IllegalStateException.class);
        LockLease other = a.acquire(LockSpec.of(key).shared().owner("job-2").waitFor(WAIT));
        assertThat(other.fencingToken()).as("another owner is another hold").isNotEqualTo(read.fencingToken());
        nested.close();
        read.close();
        other.close();
        assertThat(contract.residueOnServer(key)).isZero();
    }

    // ---- fencing -------------------------------------------------------------------------

    @Test
    void tokensStrictlyIncreaseOverMixedGrants() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        List<Long> tokens = new ArrayList<>();
        LockLease r1 = a.acquire(shared(key, WAIT));
        LockLease r2 = b.acquire(shared(key, WAIT));
        tokens.add(r1.fencingToken());
        tokens.add(r2.fencingToken());
        r1.close();
        LockLease r3 = a.acquire(shared(key, WAIT));
        tokens.add(r3.fencingToken());
        r2.close();
        r3.close();
        for (int i = 0; i < 3; i++) {
            try (LockLease w = (i % 2 == 0 ? b : a).acquire(exclusive(key, WAIT))) {
                tokens.add(w.fencingToken());
            }
            try (LockLease r = (i % 2 == 0 ? a : b).acquire(shared(key, WAIT))) {
                tokens.add(r.fencingToken());
            }
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token of grant %d after %s", i, tokens.subList(0, i))
                    .isGreaterThan(tokens.get(i - 1));
        }
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

    // ---- the ReadWriteLock view ----------------------------------------------------------

    @Test
    void readWriteLockViewSharesReadsAndIsOneLockWithAsLock() throws Exception {
        if (refusedClearlyWhereUnsupported()) {
            return;
        }
        String key = key();
        ReadWriteLock rw = a.readWriteLock(key);
        rw.readLock().lock();
        try {
            assertThat(onOtherThread(() -> {
                Lock read = a.readWriteLock(key).readLock();
                boolean got = read.tryLock(1, TimeUnit.SECONDS);
                if (got) {
                    read.unlock();
                }
                return got;
            })).as("another thread reads too").isTrue();
            assertThat(b.readWriteLock(key).readLock().tryLock()).as("another client reads too").isTrue();
            b.readWriteLock(key).readLock().unlock();
            assertThat(b.readWriteLock(key).writeLock().tryLock()).as("a writer waits for readers").isFalse();
            assertThatThrownBy(() -> rw.writeLock().tryLock()).as("upgrade").isInstanceOf(IllegalStateException.class);
        } finally {
            rw.readLock().unlock();
        }
        Lock write = a.asLock(key);
        write.lock();
        try {
            assertThat(rw.readLock().tryLock()).as("read inside write").isTrue();
            rw.readLock().unlock();
            assertThat(b.readWriteLock(key).readLock().tryLock()).isFalse();
        } finally {
            rw.writeLock().unlock(); // the same lock as asLock(key)
        }
        assertThatThrownBy(() -> rw.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> rw.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(b.readWriteLock(key).writeLock().tryLock()).isTrue();
        b.readWriteLock(key).writeLock().unlock();
    }

    // ---- helpers -------------------------------------------------------------------------

    /** Runs {@code body} on a fresh thread (another owner) and returns its result. */
    protected static <T> T onOtherThread(java.util.concurrent.Callable<T> body) throws Exception {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(body);
        Thread thread = new Thread(task, "tck-rw-other");
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e;
        }
    }

    private static <T> T runElsewhere(java.util.concurrent.Callable<T> body) {
        try {
            return onOtherThread(body);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Starts {@code waiting} on a thread, interrupts it once it waits, and returns what it threw. */
    private Throwable interruptWhileWaiting(java.util.concurrent.Callable<LockLease> waiting) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = start("interrupted", () -> {
            try {
                waiting.call().close();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        Thread.sleep(400);
        waiter.interrupt();
        waiter.join(LockBackendContractSuite.SLACK.toMillis());
        assertThat(waiter.isAlive()).as("waiter still waiting after interrupt").isFalse();
        return failure.get();
    }
}
