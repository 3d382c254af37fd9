package dev.mortise.lock.internal;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The local read-write gate of one client: several shared holds of a key at once, an exclusive
 * one alone, writer preference among this client's own callers, reentrancy rules, and a gate left
 * clean by every way a wait can end. One client on the local backend, so every contender but the
 * first waits in the gate, not on the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadWriteGateTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final LocalLockServer server = new LocalLockServer("rw");
    private final DefaultLockClient client =
            (DefaultLockClient) LockClient.builder(new LocalLockBackend(server)).defaultLease(Duration.ofSeconds(2)).build();

    @AfterEach
    void close() {
        client.close();
    }

    private static LockSpec shared(String key, Duration wait) {
        return LockSpec.of(key).shared().waitFor(wait);
    }

    private static <T> CompletableFuture<T> async(Callable<T> body) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                future.complete(body.call());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        }, "rw-gate-test");
        thread.setDaemon(true);
        thread.start();
        return future;
    }

    private static <T> T elsewhere(Callable<T> body) throws Exception {
        try {
            return async(body).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(5);
        }
    }

    /** A thread of this client that waits in the gate for {@code key} exclusive until released. */
    /**
     * Every gate is given up. A writer thread of a test leaves its gate after waking the next
     * caller, so the last leave may still be on its way when the test's own leases are closed:
     * wait for it (a gate that is never given up still fails).
     */
    private void assertNoGateLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.gatesInUse() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(client.gatesInUse()).as("gates in use").isZero();
    }

    private static final class Writer {
        final CompletableFuture<LockLease> granted = new CompletableFuture<>();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final Thread thread;

        Writer(LockClient client, String key, Duration wait) {
            thread = new Thread(() -> {
                try (LockLease lease = client.acquire(LockSpec.of(key).waitFor(wait))) {
                    granted.complete(lease);
                    release.get();
                } catch (Throwable t) {
                    granted.completeExceptionally(t);
                }
            }, "rw-gate-writer");
            thread.setDaemon(true);
            thread.start();
        }

        boolean waiting() {
            Thread.State state = thread.getState();
            return !granted.isDone() && (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING);
        }
    }

    @Test
    void readersOfOneClientAreInTogetherEachOnItsOwnServerHold() throws Exception {
        try (LockLease one = client.acquire(shared("k", WAIT))) {
            LockLease two = elsewhere(() -> client.acquire(shared("k", Duration.ZERO)));
            assertThat(two.mode()).isEqualTo(LockMode.SHARED);
            assertThat(two.fencingToken()).isGreaterThan(one.fencingToken());
            assertThat(server.records("k")).as("two shared holds on the server").isEqualTo(2);
            assertThat(client.heldLocks()).extracting(HeldLock::mode).containsExactly(LockMode.SHARED, LockMode.SHARED);
            assertThat(elsewhere(() -> client.tryAcquire("k"))).as("a writer of this client").isEmpty();
            two.close();
            assertThat(one.isValid()).isTrue();
        }
        assertNoGateLeft();
        assertThat(server.records("k")).isZero();
    }

    @Test
    void aWriterIsAloneInTheGate() throws Exception {
        try (LockLease writer = client.acquire(LockSpec.of("k").waitFor(WAIT))) {
            assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ofMillis(100))))).isEmpty();
            assertThat(elsewhere(() -> client.tryAcquire(LockSpec.of("k")))).isEmpty();
            assertThat(writer.isValid()).isTrue();
        }
        assertNoGateLeft();
    }

    /**
     * A reader holds; a writer of the same client waits in the gate (never reaching the server,
     * which would not know it waits); a new reader of the client must queue behind that writer
     * rather than join the first reader, or a stream of readers would starve it.
     */
    @Test
    void aWriterWaitingInTheGateKeepsNewReadersOfTheClientOut() throws Exception {
        LockLease first = client.acquire(shared("k", WAIT));
        Writer writer = new Writer(client, "k", Duration.ofSeconds(30));
        await(writer::waiting, "the writer waits in the gate");
        assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ZERO))))
                .as("a zero-wait reader does not pass the waiting writer").isEmpty();
        CompletableFuture<LockLease> reader = async(() -> client.acquire(shared("k", Duration.ofSeconds(30))));
        Thread.sleep(200);
        assertThat(reader).as("a waiting reader queues behind the writer").isNotDone();
        first.close();
        LockLease writerLease = writer.granted.get(10, TimeUnit.SECONDS);
        assertThat(writerLease.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(reader).as("the reader waits for the writer to leave").isNotDone();
        writer.release.complete(null);
        LockLease read = reader.get(10, TimeUnit.SECONDS);
        assertThat(read.fencingToken()).isGreaterThan(writerLease.fencingToken());
        read.close();
        assertNoGateLeft();
    }

    /** A writer that times out in the gate must not leave the readers queued behind it stuck. */
    @Test
    void aWriterTimingOutInTheGateLetsTheReadersBehindItIn() throws Exception {
        LockLease first = client.acquire(shared("k", WAIT));
        Writer writer = new Writer(client, "k", Duration.ofMillis(600));
        await(writer::waiting, "the writer waits in the gate");
        CompletableFuture<LockLease> reader = async(() -> client.acquire(shared("k", Duration.ofSeconds(30))));
        assertThatThrownBy(() -> writer.granted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(
                dev.mortise.lock.LockTimeoutException.class);
        LockLease read = reader.get(5, TimeUnit.SECONDS);
        assertThat(read.isValid() && first.isValid()).as("both readers in together").isTrue();
        read.close();
        first.close();
        assertNoGateLeft();
    }

    @Test
    void timedOutAndInterruptedReadersLeaveTheGateClean() throws Exception {
        LockLease writer = client.acquire(LockSpec.of("k").waitFor(WAIT));
        assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ofMillis(200))))).isEmpty();
        AtomicReference<Thread> readerThread = new AtomicReference<>();
        CompletableFuture<LockLease> interrupted = async(() -> {
            readerThread.set(Thread.currentThread());
            return client.acquire(shared("k", Duration.ofSeconds(30)));
        });
        await(() -> readerThread.get() != null && readerThread.get().getState() == Thread.State.TIMED_WAITING,
                "the reader waits in the gate");
        readerThread.get().interrupt();
        assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockInterruptedException.class);
        assertThat(client.gatesInUse()).as("the writer's gate only").isEqualTo(1);
        writer.close();
        assertNoGateLeft();
        assertThat(server.records("k")).isZero();
        client.acquire(shared("k", Duration.ZERO)).close();
    }

    @Test
    void upgradeIsRefusedAtOnceNamingTheDeadlockAndLeavesTheReadHoldAsItWas() throws Exception {
        try (LockLease read = client.acquire(shared("k", WAIT))) {
            assertThatThrownBy(() -> client.acquire(LockSpec.of("k").waitFor(WAIT)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'k'").hasMessageContaining("'local'")
                    .hasMessageContaining("upgrading").hasMessageContaining("wait for the other");
            assertThat(read.isValid()).isTrue();
            assertThat(read.holdCount()).isEqualTo(1);
            assertThat(client.gatesInUse()).isEqualTo(1);
        }
        assertNoGateLeft();
    }

    @Test
    void readInsideReadAndReadInsideWriteNest() throws Exception {
        try (LockLease read = client.acquire(shared("k", WAIT));
             LockLease again = client.acquire(shared("k", Duration.ZERO))) {
            assertThat(again.fencingToken()).isEqualTo(read.fencingToken());
            assertThat(server.records("k")).as("one server hold").isEqualTo(1);
        }
        LockLease write = client.acquire(LockSpec.of("k").waitFor(WAIT));
        LockLease read = client.acquire(shared("k", Duration.ZERO));
        assertThat(read.fencingToken()).isEqualTo(write.fencingToken());
        assertThat(read.mode()).isEqualTo(LockMode.EXCLUSIVE);
        write.close();
        assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ZERO))))
                .as("exclusive until the nested read closes").isEmpty();
        read.close();
        assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ZERO)))).hasValueSatisfying(LockLease::close);
        assertNoGateLeft();
    }

    @Test
    void explicitOwnersNestFromAnyThreadAndEachOtherOwnerIsAnotherHold() throws Exception {
        LockLease job = client.acquire(LockSpec.of("k").shared().owner("job").waitFor(WAIT));
        LockLease nested = elsewhere(() -> client.acquire(LockSpec.of("k").shared().owner("job")));
        assertThat(nested.fencingToken()).isEqualTo(job.fencingToken());
        assertThatThrownBy(() -> elsewhere(() -> client.acquire(LockSpec.of("k").owner("job"))))
                .isInstanceOf(IllegalStateException.class);
        LockLease other = client.acquire(LockSpec.of("k").shared().owner("other"));
        assertThat(other.fencingToken()).isNotEqualTo(job.fencingToken());
        assertThat(client.heldLocks()).hasSize(2);
        nested.close();
        job.close();
        other.close();
        assertNoGateLeft();
    }

    @Test
    void forceReleaseEndsEverySharedHoldOfTheKey() throws Exception {
        LockLease one = client.acquire(shared("k", WAIT));
        LockLease two = elsewhere(() -> client.acquire(shared("k", WAIT)));
        List<LostReason> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
        one.onLost(e -> reasons.add(e.reason()));
        two.onLost(e -> reasons.add(e.reason()));
        assertThat(client.forceRelease("k")).isTrue();
        assertThat(reasons).containsExactly(LostReason.FORCE_RELEASED, LostReason.FORCE_RELEASED);
        assertThat(server.records("k")).isZero();
        assertNoGateLeft();
        assertThatThrownBy(one::close).isInstanceOf(LockLostException.class);
        assertThatThrownBy(two::close).isInstanceOf(LockLostException.class);
    }

    @Test
    void closingTheClientEndsEverySharedHold() throws Exception {
        LockLease one = client.acquire(shared("k", WAIT));
        LockLease two = elsewhere(() -> client.acquire(shared("k", WAIT)));
        client.close();
        assertThat(one.isValid() || two.isValid()).isFalse();
        assertThat(server.records("k")).isZero();
    }

    @Test
    void sharedRequestsOnABackendWithoutSharedModeAreRefusedNamingKeyBackendAndFix() {
        try (LockClient plain = LockClient.builder(new ScriptedBackend()).build()) {
            assertThatThrownBy(() -> plain.acquire(shared("orders:7", WAIT)))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'orders:7'").hasMessageContaining("'scripted'")
                    .hasMessageContaining("supportsSharedMode").hasMessageContaining("exclusive");
            assertThat(plain.tryAcquire(LockSpec.of("orders:7"))).hasValueSatisfying(LockLease::close);
            assertThatThrownBy(() -> plain.readWriteLock("orders:7").readLock().lock()).isInstanceOf(LockException.class);
            assertThat(((DefaultLockClient) plain).gatesInUse()).isZero();
        }
    }

    @Test
    void readWriteLockViewsOfAKeyAreOneLockPerThread() throws Exception {
        ReadWriteLock rw = client.readWriteLock("k");
        Lock asLock = client.asLock("k");
        rw.readLock().lock();
        rw.readLock().lock();
        assertThat(elsewhere(() -> {
            boolean in = client.readWriteLock("k").readLock().tryLock();
            client.readWriteLock("k").readLock().unlock();
            return in;
        })).isTrue();
        assertThatThrownBy(asLock::tryLock).isInstanceOf(IllegalStateException.class);
        rw.readLock().unlock();
        rw.readLock().unlock();
        assertThatThrownBy(() -> rw.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        asLock.lock();
        assertThat(rw.readLock().tryLock(1, TimeUnit.SECONDS)).isTrue();
        rw.writeLock().unlock();
        assertThat(elsewhere(() -> client.tryAcquire(shared("k", Duration.ZERO)))).isEmpty();
        rw.readLock().unlock();
        assertNoGateLeft();
        assertThatThrownBy(() -> rw.readLock().newCondition()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(Optional.of(rw.toString())).hasValueSatisfying(s -> assertThat(s).contains("k"));
    }
}
