package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockTimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The busy policies WAIT, SKIP and FAIL when another owner holds the lock. */
class DistributedLockPolicyTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner().withBean(Jobs.class);

    @Test
    void waitRunsOnceTheLockIsReleased() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockLease other = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "job");
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(jobs::waitLong);
            Thread.sleep(100);
            assertThat(waiting).isNotDone();
            other.close();
            assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
        });
    }

    @Test
    void waitTimesOutWithoutRunning() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "job")) {
                assertThatThrownBy(jobs::waitShort).isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("job");
            }
            assertThat(jobs.runs()).isEqualTo(0);
        });
    }

    @Test
    void waitWithoutWaitForUsesTheConfiguredDefault() {
        runner.withPropertyValues("mortise.lock.wait-for=50ms").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "job")) {
                long start = System.nanoTime();
                assertThatThrownBy(jobs::waitDefault).isInstanceOf(LockTimeoutException.class);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
            }
        });
    }

    @Test
    void skipReturnsNothingAsFitsTheReturnType() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "job")) {
                jobs.skipVoid();
                assertThat(jobs.skipValue()).isNull();
                assertThat(jobs.skipOptional()).isEmpty();
            }
            assertThat(jobs.runs()).isEqualTo(0);
            jobs.skipVoid();
            assertThat(jobs.skipValue()).isEqualTo("ran");
            assertThat(jobs.skipOptional()).contains("ran");
            assertThat(jobs.runs()).isEqualTo(3);
        });
    }

    @Test
    void failThrowsAtOnceWithoutRunning() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "job")) {
                assertThatThrownBy(jobs::fail).isInstanceOf(LockBusyException.class)
                        .hasMessageContaining("job").hasMessageContaining("Jobs.fail()")
                        .hasMessageContaining("local").hasMessageContaining("onBusy = FAIL");
            }
            assertThat(jobs.runs()).isEqualTo(0);
            assertThat(jobs.fail()).isEqualTo("ran");
        });
    }

    @Test
    void lockIsReleasedWhenTheMethodThrows() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThatThrownBy(jobs::explode).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
            assertThat(context.getBean(LockClient.class).tryAcquire("job")).hasValueSatisfying(LockLease::close);
        });
    }

    public static class Jobs {
        private final AtomicInteger runs = new AtomicInteger();

        /** Through the proxy: fields of a class-based proxy are not the target's. */
        public int runs() {
            return runs.get();
        }

        @DistributedLock(key = "'job'", waitFor = "5s")
        public String waitLong() {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'job'", waitFor = "100ms")
        public String waitShort() {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'job'")
        public String waitDefault() {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'job'", onBusy = OnBusy.SKIP)
        public void skipVoid() {
            runs.incrementAndGet();
        }

        @DistributedLock(key = "'job'", onBusy = OnBusy.SKIP)
        public String skipValue() {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'job'", onBusy = OnBusy.SKIP, waitFor = "20ms")
        public Optional<String> skipOptional() {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @DistributedLock(key = "'job'", onBusy = OnBusy.FAIL)
        public String fail() {
            runs.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'job'")
        public String explode() {
            throw new IllegalStateException("boom");
        }
    }
}
