package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.actuate.DeadlocksDescriptor;
import dev.mortise.lock.spring.actuate.LocksEndpoint;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockEndpointAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deadlock detection through the starter (issue 31): two application contexts on one lock server
 * stand for two instances, each running a nested pair of {@code @DistributedLock} methods (a
 * transfer that holds its source key and calls the ledger's method locked on the other key) in the
 * opposite order. Exactly one caller gets {@link LockDeadlockException} as itself, whatever the busy
 * policy; its instance counts it ({@value LockMetrics#DEADLOCKS}) and shows the cycle in the
 * {@code locks} endpoint; with {@code mortise.lock.deadlock-detection.enabled=false} the waits run
 * out instead. Subclasses give the server.
 */
abstract class DeadlockIntegrationTestSupport {

    /** Far longer than detection takes: a wait that runs out is a missed deadlock, not a slow machine. */
    static final String LONG_WAIT = "60s";

    private final ExecutorService callers = Executors.newFixedThreadPool(2);

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    /** The backend name, as in {@code mortise.lock.backend}. */
    abstract String backend();

    /** The server's properties, and beans that put both contexts on one server. */
    abstract ApplicationContextRunner onTheServer(ApplicationContextRunner runner);

    final ApplicationContextRunner runner() {
        return onTheServer(new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class, MortiseLockMetricsAutoConfiguration.class,
                        MortiseLockEndpointAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=" + backend(), "mortise.lock.wait-for=" + LONG_WAIT,
                        "mortise.lock.deadlock-detection.threshold=100ms",
                        "mortise.lock.deadlock-detection.period=250ms",
                        "management.endpoints.web.exposure.include=locks")
                .withBean(SimpleMeterRegistry.class)
                .withBean(Ledger.class)
                .withBean(Transfers.class));
    }

    /** What one instance's transfer came to: the ledger's answer, or the failure. */
    record Outcome(ApplicationContext instance, String posted, Throwable failure) {
    }

    /** Transfers {@code from → to} on {@code instance} on a thread of its own, once both instances hold their source. */
    private Future<Outcome> transfer(ApplicationContext instance, String from, String to, Post post,
                                     CountDownLatch bothHold, CountDownLatch bothTried) {
        Transfers transfers = instance.getBean(Transfers.class);
        return callers.submit(() -> {
            try {
                return new Outcome(instance, transfers.transfer(from, to, post, bothHold, bothTried), null);
            } catch (Throwable e) {
                return new Outcome(instance, null, e);
            }
        });
    }

    /** Runs the two opposite transfers, one per instance; the ledger's lock is taken by {@code post}. */
    private List<Outcome> crossedTransfers(ApplicationContext first, ApplicationContext second, Post post,
                                           boolean holdUntilBothTried) throws Exception {
        String a = "account:" + UUID.randomUUID();
        String b = "account:" + UUID.randomUUID();
        CountDownLatch bothHold = new CountDownLatch(2);
        CountDownLatch bothTried = new CountDownLatch(holdUntilBothTried ? 2 : 0);
        Future<Outcome> one = transfer(first, a, b, post, bothHold, bothTried);
        Future<Outcome> two = transfer(second, b, a, post, bothHold, bothTried);
        return List.of(one.get(90, TimeUnit.SECONDS), two.get(90, TimeUnit.SECONDS));
    }

    /** Exactly one outcome is a {@link LockDeadlockException} (as itself, not wrapped), the other posted. */
    private static Outcome oneVictim(List<Outcome> outcomes) {
        List<Outcome> victims = outcomes.stream().filter(o -> o.failure() instanceof LockDeadlockException).toList();
        assertThat(victims).as("callers stopped as a deadlock's victim").hasSize(1);
        Outcome survivor = outcomes.stream().filter(o -> o != victims.get(0)).findFirst().orElseThrow();
        assertThat(survivor.failure()).as("the survivor's failure").isNull();
        assertThat(survivor.posted()).startsWith("posted ");
        return victims.get(0);
    }

    private static double deadlocks(ApplicationContext instance) {
        return instance.getBean(MeterRegistry.class).find(LockMetrics.DEADLOCKS).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private DeadlocksDescriptor endpointDeadlocks(ApplicationContext instance) {
        return instance.getBean(LocksEndpoint.class).locks().deadlocks().stream()
                .filter(d -> d.backend().equals(backend())).findFirst().orElseThrow();
    }

    @Test
    void nestedMethodsInOppositeOrderEndWithOneDeadlockCountedAndShown() {
        runner().run(first -> runner().run(second -> {
            Outcome victim = oneVictim(crossedTransfers(first, second, Post.WAIT, false));
            LockDeadlockException e = (LockDeadlockException) victim.failure();
            assertThat(e.cycle().members()).hasSize(2);
            assertThat(e.getMessage()).contains("Deadlock").contains(e.key());
            ApplicationContext survivor = victim.instance() == first ? second : first;

            assertThat(deadlocks(victim.instance())).isEqualTo(1);
            assertThat(deadlocks(survivor)).isZero();
            assertThat(victim.instance().getBean(MeterRegistry.class).get(LockMetrics.DEADLOCKS)
                    .tag(LockMetrics.TAG_BACKEND, backend()).tag(LockMetrics.TAG_NAME, "post")
                    .tag(LockMetrics.TAG_MODE, "write").counter().count()).isEqualTo(1);
            assertThat(victim.instance().getBean(MeterRegistry.class).get(LockMetrics.ACQUIRE)
                    .tag(LockMetrics.TAG_NAME, "post").tag(LockMetrics.TAG_OUTCOME, "error").timer().count())
                    .as("the victim's acquire failed, once").isEqualTo(1);

            DeadlocksDescriptor shown = endpointDeadlocks(victim.instance());
            assertThat(shown.enabled()).isTrue();
            assertThat(shown.found()).isEqualTo(1);
            assertThat(shown.waits()).as("no wait left once the victim let go").isEmpty();
            assertThat(shown.cycles()).singleElement().satisfies(cycle -> {
                assertThat(cycle.victim()).isEqualTo(e.key());
                assertThat(cycle.foundAt()).isEqualTo(e.cycle().foundAt().toString());
                assertThat(cycle.members()).hasSize(2).filteredOn(DeadlocksDescriptor.MemberDescriptor::victim)
                        .singleElement().satisfies(m -> assertThat(m.waitsFor()).isEqualTo(e.key()));
                assertThat(cycle.members()).extracting(DeadlocksDescriptor.MemberDescriptor::heldKey)
                        .containsExactlyInAnyOrderElementsOf(cycle.members().stream()
                                .map(DeadlocksDescriptor.MemberDescriptor::waitsFor).toList());
            });
            assertThat(endpointDeadlocks(survivor).found()).isZero();
        }));
    }

    /** SKIP is about a busy lock: a deadlock is not "busy", so it is not skipped into a null return. */
    @Test
    void theSkipPolicyDoesNotSwallowADeadlock() {
        runner().run(first -> runner().run(second -> {
            Outcome victim = oneVictim(crossedTransfers(first, second, Post.SKIP, false));
            assertThat(deadlocks(victim.instance())).isEqualTo(1);
        }));
    }

    @Test
    void withDetectionOffTheCrossedWaitsRunOut() {
        ApplicationContextRunner off = runner().withPropertyValues("mortise.lock.deadlock-detection.enabled=false");
        off.run(first -> off.run(second -> {
            // Each keeps its source until both inner waits ended, so both run out.
            List<Outcome> outcomes = crossedTransfers(first, second, Post.BRIEFLY, true);
            assertThat(outcomes).allSatisfy(o -> assertThat(o.failure()).isInstanceOf(LockTimeoutException.class)
                    .isNotInstanceOf(LockDeadlockException.class));
            for (ApplicationContext instance : List.of(first, second)) {
                assertThat(deadlocks(instance)).isZero();
                DeadlocksDescriptor shown = endpointDeadlocks(instance);
                assertThat(shown.enabled()).isFalse();
                assertThat(shown.found()).isZero();
                assertThat(shown.cycles()).isEmpty();
            }
        }));
    }

    /** A nested wait beyond the threshold is shown while it lasts, with the holder id of the lock its owner holds. */
    @Test
    void theEndpointShowsALongNestedWait() {
        runner().run(first -> runner().run(second -> {
            String a = "account:" + UUID.randomUUID();
            String b = "account:" + UUID.randomUUID();
            LockLease elsewhere = second.getBean(LockClient.class).acquire(LockSpec.of(b).owner("another-instance")
                    .waitFor(Duration.ofSeconds(5)));
            CountDownLatch alone = new CountDownLatch(1);
            Future<Outcome> waiting = transfer(first, a, b, Post.WAIT, alone, new CountDownLatch(0));
            alone.countDown();
            DeadlocksDescriptor.WaitDescriptor wait = awaitWait(first);
            LocksEndpoint.HeldLockDescriptor source = first.getBean(LocksEndpoint.class).locks().held().stream()
                    .filter(h -> h.key().equals(a)).findFirst().orElseThrow();
            assertThat(wait.key()).isEqualTo(b);
            assertThat(wait.mode()).isEqualTo("write");
            assertThat(Duration.parse(wait.waited())).isPositive();
            assertThat(wait.holderIds()).containsExactly(source.holderId());
            elsewhere.close();
            assertThat(waiting.get(30, TimeUnit.SECONDS).posted()).isEqualTo("posted " + b);
            assertThat(endpointDeadlocks(first).waits()).isEmpty();
            assertThat(endpointDeadlocks(first).found()).isZero();
        }));
    }

    private DeadlocksDescriptor.WaitDescriptor awaitWait(ApplicationContext instance) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<DeadlocksDescriptor.WaitDescriptor> waits = endpointDeadlocks(instance).waits();
            if (!waits.isEmpty()) {
                return waits.get(0);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the nested wait was never shown by the locks endpoint");
    }

    /** How the transfer takes the ledger's lock. */
    enum Post {
        WAIT, SKIP, BRIEFLY;

        String on(Ledger ledger, String key) {
            return switch (this) {
                case WAIT -> ledger.post(key);
                case SKIP -> ledger.postOrSkip(key);
                case BRIEFLY -> ledger.postBriefly(key);
            };
        }
    }

    /** Service A: holds the source account while it posts to the other. */
    public static class Transfers {
        private final Ledger ledger;

        public Transfers(Ledger ledger) {
            this.ledger = ledger;
        }

        @DistributedLock(key = "#from", name = "transfer")
        public String transfer(String from, String to, Post post, CountDownLatch bothHold, CountDownLatch bothTried)
                throws InterruptedException {
            bothHold.countDown();
            assertThat(bothHold.await(30, TimeUnit.SECONDS)).as("both instances hold their source").isTrue();
            try {
                return post.on(ledger, to);
            } finally {
                bothTried.countDown();
                assertThat(bothTried.await(30, TimeUnit.SECONDS)).as("both instances tried").isTrue();
            }
        }
    }

    /** Service B: one method per busy policy, locked on the account posted to. */
    public static class Ledger {
        @DistributedLock(key = "#key", name = "post")
        public String post(String key) {
            return "posted " + key;
        }

        @DistributedLock(key = "#key", name = "post-or-skip", onBusy = OnBusy.SKIP, waitFor = LONG_WAIT)
        public String postOrSkip(String key) {
            return "posted " + key;
        }

        @DistributedLock(key = "#key", name = "post-briefly", waitFor = "1s")
        public String postBriefly(String key) {
            return "posted " + key;
        }
    }
}
