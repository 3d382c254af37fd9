package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32: a {@code Mono} method waiting for its lock holds no thread — the acquire goes through
 * {@code LockClient.acquireAsync}, not an acquiring thread of the starter's own — and its lock
 * events are still tagged with the annotation's name.
 */
class ReactiveWaitersThreadTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockMetricsAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=stalling")
            .withBean(StallingBackend.class, StallingBackend::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(Jobs.class);

    @Test
    void twoHundredMonosWaitingOnHeldKeysHoldNoThreadEachAndAllCompleteAfterRelease() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            StallingBackend backend = context.getBean(StallingBackend.class);
            try (LockClient elsewhere = LockClient.builder(new LocalLockBackend(backend.server())).build()) {
                waitOnHeldKeys(jobs, elsewhere, "warm-", 20); // Reactor's and Mortise's shared threads start here
                int before = ManagementFactory.getThreadMXBean().getThreadCount();
                int waiting = waitOnHeldKeys(jobs, elsewhere, "k-", 200);
                assertThat(waiting - before).as("threads added while 200 Mono calls wait for their locks")
                        .isLessThan(30);
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(LockMetrics.ACQUIRE).tag(LockMetrics.TAG_NAME, "waiting-job")
                    .tag(LockMetrics.TAG_OUTCOME, "acquired").timer().count())
                    .as("acquires tagged with the annotation's name").isEqualTo(220);
        });
    }

    /**
     * Holds {@code n} keys elsewhere, calls the Mono method on each, waits until every call waits on
     * the server, releases them, and checks every call completed.
     *
     * @return the JVM's thread count while all the calls waited
     */
    private static int waitOnHeldKeys(Jobs jobs, LockClient elsewhere, String prefix, int n) throws Exception {
        List<LockLease> held = new ArrayList<>();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            held.add(elsewhere.acquire(LockSpec.of(prefix + i).waitFor(Duration.ofSeconds(5))));
            calls.add(jobs.work(prefix + i).toFuture());
        }
        for (int i = 0; i < n; i++) {
            String key = prefix + i;
            AsyncCancellationTests.await(() -> elsewhere.inspect(key).waiters().orElse(0) == 1);
        }
        int waiting = ManagementFactory.getThreadMXBean().getThreadCount();
        held.forEach(LockLease::close);
        for (int i = 0; i < n; i++) {
            assertThat(calls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("done " + prefix + i);
        }
        return waiting;
    }

    public static class Jobs {
        @DistributedLock(key = "#key", name = "waiting-job", waitFor = "60s")
        public Mono<String> work(String key) {
            return Mono.just("done " + key);
        }
    }
}
