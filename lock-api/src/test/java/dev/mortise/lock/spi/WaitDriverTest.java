package dev.mortise.lock.spi;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link WaitDriver}: both ways of running a backend's {@link WaitSteps} take steps one at a time,
 * sleep on the step's wake-up or its time, call {@code end} exactly once after the last step, and
 * (async) end a sleeping wait at once when its answer is cancelled and release a grant nobody takes.
 * The grants are real ones of a {@link LocalLockServer}, so a release is seen on the server.
 */
class WaitDriverTest {

    private static final long LONG = TimeUnit.MINUTES.toNanos(10);

    private final LocalLockServer server = new LocalLockServer("wait-driver");
    private final LocalLockBackend local = new LocalLockBackend(server);

    /** Steps answered from a script; records every call of next and end. */
    private static final class Scripted implements WaitSteps {
        final List<Supplier<WaitStep>> script;
        final AtomicInteger nexts = new AtomicInteger();
        final BlockingQueue<String> ends = new LinkedBlockingQueue<>();
        volatile boolean overlapped;
        private final AtomicInteger inside = new AtomicInteger();

        Scripted(List<Supplier<WaitStep>> script) {
            this.script = script;
        }

        @Override
        public WaitStep next() {
            if (inside.incrementAndGet() > 1) {
                overlapped = true;
            }
            try {
                return script.get(Math.min(nexts.getAndIncrement(), script.size() - 1)).get();
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public void end(boolean granted, Throwable failure) {
            ends.add(granted + " " + (failure == null ? "-" : failure.getClass().getSimpleName()));
        }

        String onlyEnd() throws InterruptedException {
            String end = ends.poll(30, TimeUnit.SECONDS);
            Thread.sleep(50);
            assertThat(ends).as("end is called exactly once").isEmpty();
            return end;
        }
    }

    private Grant grant(String key) {
        return local.tryAcquire(new LockRequest(key, "o-" + key, Duration.ofSeconds(30), false, LockMode.EXCLUSIVE, null))
                .grant().orElseThrow();
    }

    @Test
    void blockingSleepsUntilWokenThenTakesTheNextStep() throws Exception {
        CompletableFuture<Void> wake = new CompletableFuture<>();
        Grant grant = grant("b1");
        Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(wake, LONG), () -> WaitStep.granted(grant)));
        new Thread(() -> wake.complete(null)).start();
        assertThat(WaitDriver.await(steps, "b1")).contains(grant);
        assertThat(steps.nexts).hasValue(2);
        assertThat(steps.onlyEnd()).isEqualTo("true -");
    }

    @Test
    void blockingTimedSleepsAndRanOut() throws Exception {
        Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(1_000_000), () -> WaitStep.sleep(new CompletableFuture<>(), 1_000_000),
                WaitStep::ranOut));
        assertThat(WaitDriver.await(steps, "b2")).isEmpty();
        assertThat(steps.nexts).hasValue(3);
        assertThat(steps.onlyEnd()).isEqualTo("false -");
    }

    @Test
    void blockingInterruptEndsTheWaitAfterEnd() throws Exception {
        Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(new CompletableFuture<>(), LONG)));
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> WaitDriver.await(steps, "b3")).isInstanceOf(InterruptedException.class)
                .hasMessageContaining("'b3'");
        assertThat(steps.onlyEnd()).isEqualTo("false InterruptedException");
        CountDownLatch sleeping = new CountDownLatch(1);
        Scripted later = new Scripted(List.of(() -> {
            sleeping.countDown();
            return WaitStep.sleep(new CompletableFuture<>(), LONG);
        }));
        Thread caller = Thread.currentThread();
        new Thread(() -> {
            await(sleeping);
            caller.interrupt();
        }).start();
        assertThatThrownBy(() -> WaitDriver.await(later, "b4")).isInstanceOf(InterruptedException.class);
        assertThat(later.onlyEnd()).isEqualTo("false InterruptedException");
    }

    @Test
    void blockingFailureEndsWithIt() throws Exception {
        Scripted steps = new Scripted(List.of(() -> {
            throw new IllegalStateException("down");
        }));
        assertThatThrownBy(() -> WaitDriver.await(steps, "b5")).hasMessage("down");
        assertThat(steps.onlyEnd()).isEqualTo("false IllegalStateException");
    }

    @Test
    void asyncWakesOnTheWakeUpAndOnTimeAndNeverOverlaps() throws Exception {
        Wakeup wakeup = new Wakeup();
        Grant grant = grant("a1");
        Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(2_000_000), () -> WaitStep.sleep(wakeup.future(), LONG),
                () -> WaitStep.granted(grant)));
        CompletableFuture<Optional<Grant>> answer = WaitDriver.start(local, steps);
        awaitNexts(steps, 2);
        assertThat(answer).isNotDone();
        wakeup.signal();
        assertThat(answer.get(30, TimeUnit.SECONDS)).contains(grant);
        assertThat(steps.onlyEnd()).isEqualTo("true -");
        assertThat(steps.overlapped).isFalse();
    }

    @Test
    void asyncCancelWhileSleepingEndsAtOnceWithNoFurtherStep() throws Exception {
        Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(new CompletableFuture<>(), LONG)));
        CompletableFuture<Optional<Grant>> answer = WaitDriver.start(local, steps);
        awaitNexts(steps, 1);
        answer.cancel(false);
        assertThat(steps.onlyEnd()).isEqualTo("false CancellationException");
        assertThat(steps.nexts).hasValue(1);
    }

    @Test
    void asyncGrantThatRacesACancelIsReleasedAfterEnd() throws Exception {
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        Grant grant = grant("a3");
        Scripted steps = new Scripted(List.of(() -> {
            inStep.countDown();
            await(cancelled);
            return WaitStep.granted(grant);
        }));
        CompletableFuture<Optional<Grant>> answer = WaitDriver.start(local, steps);
        inStep.await(30, TimeUnit.SECONDS);
        answer.cancel(false);
        cancelled.countDown();
        assertThat(steps.onlyEnd()).isEqualTo("true -");
        assertThat(server.records("a3")).isZero();
        assertThatThrownBy(answer::get).isInstanceOf(CancellationException.class);
    }

    @Test
    void asyncFailureAndRanOutComplete() throws Exception {
        Scripted failing = new Scripted(List.of(() -> {
            throw new IllegalStateException("down");
        }));
        assertThatThrownBy(() -> WaitDriver.start(local, failing).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasRootCauseMessage("down");
        assertThat(failing.onlyEnd()).isEqualTo("false IllegalStateException");
        Scripted ranOut = new Scripted(List.of(() -> WaitStep.sleep(0), WaitStep::ranOut));
        assertThat(WaitDriver.start(local, ranOut).get(30, TimeUnit.SECONDS)).isEmpty();
        assertThat(ranOut.onlyEnd()).isEqualTo("false -");
    }

    @Test
    void manySleepingAsyncWaitsHoldNoThreads() throws Exception {
        int before = Thread.activeCount();
        Wakeup wakeup = new Wakeup();
        List<CompletableFuture<Optional<Grant>>> answers = new ArrayList<>();
        List<Scripted> all = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            Scripted steps = new Scripted(List.of(() -> WaitStep.sleep(wakeup.future(), LONG), WaitStep::ranOut));
            all.add(steps);
            answers.add(WaitDriver.start(local, steps));
        }
        for (Scripted steps : all) {
            awaitNexts(steps, 1);
        }
        assertThat(Thread.activeCount() - before).as("threads started for 2,000 sleeping waits").isLessThan(20);
        wakeup.signal();
        for (CompletableFuture<Optional<Grant>> answer : answers) {
            assertThat(answer.get(30, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void aLongAsyncWaitOnOneWakeupAddsOneCallbackNotOnePerSleep() throws Exception {
        Wakeup wakeup = new Wakeup();
        AtomicInteger sleeps = new AtomicInteger();
        Scripted steps = new Scripted(List.of(() -> sleeps.incrementAndGet() < 200
                ? WaitStep.sleep(wakeup.future(), 100_000) : WaitStep.ranOut()));
        assertThat(WaitDriver.start(local, steps).get(30, TimeUnit.SECONDS)).isEmpty();
        assertThat(sleeps).hasValue(200);
        assertThat(wakeup.future().getNumberOfDependents()).as("callbacks left on the wake-up by 199 timed-out sleeps")
                .isLessThanOrEqualTo(1);
    }

    @Test
    void wakeupIsABinarySignal() {
        Wakeup wakeup = new Wakeup();
        assertThat(wakeup.take()).isFalse();
        CompletableFuture<Void> first = wakeup.future();
        wakeup.signal();
        wakeup.signal();
        assertThat(first).isDone();
        assertThat(wakeup.take()).isTrue();
        assertThat(wakeup.take()).isFalse();
        assertThat(wakeup.future()).isNotDone();
    }

    private static void awaitNexts(Scripted steps, int count) throws InterruptedException {
        for (int i = 0; i < 3_000 && steps.nexts.get() < count; i++) {
            Thread.sleep(10);
        }
        assertThat(steps.nexts.get()).isGreaterThanOrEqualTo(count);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
