package dev.mortise.lock.spring;

import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code holdAtLeast} keeps the lock after a quick method, as ShedLock's lockAtLeastFor. */
class HoldAtLeastTests {

    @Test
    void lockOutlivesAQuickMethodThenIsReleasedWithoutTheCallerWaiting() {
        LockTestSupport.localRunner().withBean(ScheduledJob.class).run(context -> {
            ScheduledJob job = context.getBean(ScheduledJob.class);
            var server = context.getBean(LocalLockBackend.class).server();
            long start = System.nanoTime();
            job.run();
            assertThat(System.nanoTime() - start).as("the caller does not wait for holdAtLeast")
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(1000));
            assertThat(server.isHeld("nightly")).isTrue();
            // A second run while the hold lasts is skipped, even from the same thread:
            // the hold is not the thread's any more, so it must not re-enter.
            job.run();
            assertThat(job.runs()).isEqualTo(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (server.isHeld("nightly") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.isHeld("nightly")).isFalse();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
            job.run();
            assertThat(job.runs()).isEqualTo(2);
        });
    }

    @Test
    void aMethodLongerThanHoldAtLeastReleasesOnReturn() {
        LockTestSupport.localRunner().withBean(ScheduledJob.class).run(context -> {
            ScheduledJob job = context.getBean(ScheduledJob.class);
            job.slow();
            assertThat(context.getBean(LocalLockBackend.class).server().isHeld("slow")).isFalse();
        });
    }

    public static class ScheduledJob {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @DistributedLock(key = "'nightly'", onBusy = OnBusy.SKIP, holdAtLeast = "1500ms")
        public void run() {
            runs.incrementAndGet();
        }

        @DistributedLock(key = "'slow'", onBusy = OnBusy.SKIP, holdAtLeast = "10ms")
        public void slow() throws InterruptedException {
            Thread.sleep(50);
        }
    }
}
