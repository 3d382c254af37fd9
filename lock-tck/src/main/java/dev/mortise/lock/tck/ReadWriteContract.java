package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read-write (shared/exclusive) part of the contract, run by every backend's contract test
 * through the {@code @Nested} class {@code LockBackendContractSuite.ReadWrite}: no new file per
 * backend. It uses the enclosing test's clients {@code a} and {@code b}, its backend factory and
 * its hooks ({@code breakHold}, {@code residueOnServer}). Waiting, writer preference, cleanup and
 * losses are the {@link ReadWriteWaitingContract}'s, nested beside it as {@code ReadWriteWaiting}.
 *
 * <p>On a backend whose {@link LockBackend#supportsSharedMode()} is false, every test asserts the
 * contract that applies there instead: the core refuses each shared request clearly (a
 * {@link dev.mortise.lock.LockException} naming key, backend and {@code supportsSharedMode}),
 * nothing is left on the server and exclusive holds still work. Nothing is skipped.
 */
public abstract class ReadWriteContract extends SharedModeContract {

    protected ReadWriteContract(LockBackendContractSuite contract) {
        super(contract);
    }

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
}
