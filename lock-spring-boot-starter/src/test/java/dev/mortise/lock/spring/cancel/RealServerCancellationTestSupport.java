package dev.mortise.lock.spring.cancel;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 15 item 1 on a real server: a {@code @DistributedLock} method returning {@code Mono},
 * {@code Flux} or {@code CompletableFuture} whose call is cancelled at any point leaves nothing
 * held — on the server (a second client's tryAcquire gets the key, and the server shows no key)
 * and in the client. The starter talks to the server through a {@link StallingProxy}, which
 * holds the acquire's request on the wire (the server has not seen it) or its reply (the
 * server granted; the answer is on its way back: the acquire's last round trip), so the
 * cancellation lands there for certain; then the proxy lets go, and the grant that arrives
 * after the cancellation must be released. The lease is long (30 s), so a leaked grant would
 * still be on the server when the test looks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class RealServerCancellationTestSupport {

    static final Duration LEASE = Duration.ofSeconds(30);

    /** The backend property value ("redis", "etcd"). */
    abstract String backend();

    /** Properties pointing the starter's client at {@code proxy}. */
    abstract String[] connection(StallingProxy proxy);

    /** The proxy in front of the server (one per class). */
    abstract StallingProxy proxy();

    /** Bytes that appear in the acquire request of {@code key} and in no earlier request. */
    abstract String acquireMarker(String key);

    /** A second client's backend, straight on the server (no proxy). */
    abstract LockBackend otherClient();

    /** How many server-side entries of {@code key} (lock keys, holder records) exist, read from the server. */
    abstract int onServer(String key) throws Exception;

    ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=" + backend(), "mortise.lock.wait-for=10s",
                        "mortise.lock.default-lease=" + LEASE.toSeconds() + "s")
                .withPropertyValues(connection(proxy()))
                .withBean(Jobs.class);
    }

    private static String newKey() {
        return "cancel-" + UUID.randomUUID();
    }

    // ---- Mono and Flux --------------------------------------------------------------------------

    @Test
    void monoCancelledBeforeTheAcquireStarts() {
        runner().run(context -> cancelledOnSubscribe(context, true));
    }

    @Test
    void fluxCancelledBeforeTheAcquireStarts() {
        runner().run(context -> cancelledOnSubscribe(context, false));
    }

    @Test
    void monoCancelledWhileTheAcquireRequestIsOnTheWire() {
        runner().run(context -> cancelledWhileHeld(context, true, false));
    }

    @Test
    void fluxCancelledWhileTheAcquireRequestIsOnTheWire() {
        runner().run(context -> cancelledWhileHeld(context, false, false));
    }

    @Test
    void monoCancelledWhileTheGrantIsOnItsWayBack() {
        runner().run(context -> cancelledWhileHeld(context, true, true));
    }

    @Test
    void fluxCancelledWhileTheGrantIsOnItsWayBack() {
        runner().run(context -> cancelledWhileHeld(context, false, true));
    }

    @Test
    void monoCancelledAfterTheAcquireBeforeThePublisherRuns() {
        runner().run(context -> cancelledBeforeThePublisher(context, true));
    }

    @Test
    void fluxCancelledAfterTheAcquireBeforeThePublisherRuns() {
        runner().run(context -> cancelledBeforeThePublisher(context, false));
    }

    @Test
    void monoAndFluxCancelledWhileThePublisherRuns() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            String monoKey = newKey();
            Disposable mono = jobs.mono(monoKey, Mono.never()).subscribe();
            await(() -> onServerQuietly(monoKey) > 0);
            mono.dispose();
            assertNothingHeld(context, monoKey);
            String fluxKey = newKey();
            Disposable flux = jobs.flux(fluxKey, Flux.never()).subscribe();
            await(() -> onServerQuietly(fluxKey) > 0);
            flux.dispose();
            assertNothingHeld(context, fluxKey);
        });
    }

    private void cancelledOnSubscribe(ApplicationContext context, boolean mono) throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        String key = newKey();
        BaseSubscriber<String> cancelAtOnce = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {
                cancel();
            }
        };
        (mono ? jobs.mono(key, Mono.just("x")) : jobs.flux(key, Flux.just("x"))).subscribe(cancelAtOnce);
        sleep(300); // an acquire started by mistake would have reached the server by now
        assertNothingHeld(context, key);
        assertThat(jobs.calls()).as("a cancelled call never runs the method").isZero();
    }

    private void cancelledWhileHeld(ApplicationContext context, boolean mono, boolean reply) throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        String key = newKey();
        warmUp(jobs);
        if (reply) {
            proxy().holdReply(acquireMarker(key));
        } else {
            proxy().hold(acquireMarker(key));
        }
        Disposable subscription = mono ? jobs.mono(key, Mono.never()).subscribe()
                : jobs.flux(key, Flux.never()).subscribe();
        try {
            assertThat(proxy().awaitHeld(Duration.ofSeconds(20))).as("the acquire reached the proxy").isTrue();
            if (reply) {
                await(() -> onServerQuietly(key) > 0); // the server granted; the answer is held
            } else {
                assertThat(onServer(key)).as("the server has not seen the acquire yet").isZero();
            }
            subscription.dispose();
        } finally {
            proxy().letGo();
        }
        assertNothingHeld(context, key);
        assertThat(jobs.calls()).as("a cancelled call never runs the method").isZero();
    }

    private void cancelledBeforeThePublisher(ApplicationContext context, boolean mono) throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        String key = newKey();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        AtomicInteger subscribed = new AtomicInteger();
        jobs.beforeReturning(() -> {
            entered.countDown();
            awaitQuietly(goOn);
        });
        Mono<String> work = Mono.<String>never().doOnSubscribe(s -> subscribed.incrementAndGet());
        Disposable subscription = mono ? jobs.mono(key, work).subscribe() : jobs.flux(key, work.flux()).subscribe();
        try {
            assertThat(entered.await(20, TimeUnit.SECONDS)).as("the method was entered under the lock").isTrue();
            assertThat(onServer(key)).as("held while the method assembles its publisher").isPositive();
            subscription.dispose();
        } finally {
            goOn.countDown();
        }
        assertNothingHeld(context, key);
        assertThat(subscribed).as("the method's publisher is never subscribed after the cancel").hasValue(0);
    }

    // ---- CompletableFuture ----------------------------------------------------------------------

    @Test
    void futureCallerInterruptedWhileTheAcquireRequestIsOnTheWire() {
        runner().run(context -> futureInterruptedWhileHeld(context, false));
    }

    @Test
    void futureCallerInterruptedWhileTheGrantIsOnItsWayBack() {
        runner().run(context -> futureInterruptedWhileHeld(context, true));
    }

    @Test
    void futureCancelledRightAfterTheCallReturned() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            String key = newKey();
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.future(key, work);
            result.cancel(true);
            assertNothingHeld(context, key);
            assertThat(work).as("the method's own future is cancelled with the call").isCancelled();
        });
    }

    @Test
    void futureCancelledWhileTheMethodsWorkRuns() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            String key = newKey();
            CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> {
                sleep(60_000);
                return "never";
            });
            CompletableFuture<String> result = jobs.future(key, work);
            await(() -> onServerQuietly(key) > 0);
            sleep(200);
            result.cancel(true);
            assertNothingHeld(context, key);
            assertThat(work).isCancelled();
        });
    }

    private void futureInterruptedWhileHeld(ApplicationContext context, boolean reply) throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        String key = newKey();
        warmUp(jobs);
        if (reply) {
            proxy().holdReply(acquireMarker(key));
        } else {
            proxy().hold(acquireMarker(key));
        }
        AtomicReference<CompletableFuture<String>> returned = new AtomicReference<>();
        Thread caller = new Thread(() -> returned.set(jobs.future(key, new CompletableFuture<>())), "future-caller");
        caller.start();
        try {
            assertThat(proxy().awaitHeld(Duration.ofSeconds(20))).as("the acquire reached the proxy").isTrue();
            if (reply) {
                await(() -> onServerQuietly(key) > 0);
            }
            caller.interrupt();
            caller.join(TimeUnit.SECONDS.toMillis(20));
        } finally {
            proxy().letGo();
        }
        assertThat(caller.isAlive()).as("the interrupted caller returned").isFalse();
        assertThatThrownBy(() -> returned.get().get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockInterruptedException.class);
        assertNothingHeld(context, key);
        assertThat(jobs.calls()).as("an interrupted call never runs the method").isZero();
    }

    // ---- checks -----------------------------------------------------------------------------------

    /** Opens the pooled connections and loads scripts, so the marked request is the acquire itself. */
    private static void warmUp(Jobs jobs) {
        String key = "warm-up-" + UUID.randomUUID();
        assertThat(jobs.mono(key, Mono.just("x")).block(Duration.ofSeconds(20))).isEqualTo("x");
        jobs.resetCalls();
    }

    /**
     * Nothing of {@code key} is held: not on the server (no entry, and a second client gets it at
     * once), not in the client; checked again a while later, after any late answer arrived.
     */
    void assertNothingHeld(ApplicationContext context, String key) throws Exception {
        LockClient client = context.getBean(LockClient.class);
        await(() -> onServerQuietly(key) == 0 && client.heldLocks().isEmpty());
        sleep(500);
        assertThat(onServer(key)).as("entries of '" + key + "' on the server").isZero();
        assertThat(client.heldLocks()).as("held by the client").isEmpty();
        LockRequest other = new LockRequest(key, "other-" + UUID.randomUUID(), LEASE, false);
        Attempt attempt = otherClient().tryAcquire(other);
        assertThat(attempt.isGranted()).as("a second client gets '" + key + "' at once").isTrue();
        assertThat(otherClient().release(attempt.grant().orElseThrow())).isTrue();
    }

    private int onServerQuietly(String key) {
        try {
            return onServer(key);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20s");
            }
            sleep(20);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Locked methods; state behind methods, since the Spring proxy has fields of its own. */
    public static class Jobs {
        private final AtomicInteger calls = new AtomicInteger();
        private volatile Runnable beforeReturning = () -> { };

        public int calls() {
            return calls.get();
        }

        public void resetCalls() {
            calls.set(0);
        }

        /** Runs in the locked method, before it returns its publisher. */
        public void beforeReturning(Runnable action) {
            beforeReturning = action;
        }

        @DistributedLock(key = "#key")
        public Mono<String> mono(String key, Mono<String> work) {
            calls.incrementAndGet();
            beforeReturning.run();
            return work;
        }

        @DistributedLock(key = "#key")
        public Flux<String> flux(String key, Flux<String> work) {
            calls.incrementAndGet();
            beforeReturning.run();
            return work;
        }

        @DistributedLock(key = "#key")
        public CompletableFuture<String> future(String key, CompletableFuture<String> work) {
            calls.incrementAndGet();
            return work;
        }
    }
}
