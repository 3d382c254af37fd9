package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.aggregator.AggregatingMessageHandler;
import org.springframework.integration.aggregator.DefaultAggregatingMessageGroupProcessor;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.integration.handler.AbstractReplyProducingMessageHandler;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.store.SimpleMessageStore;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.messaging.Message;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link MortiseLockRegistry} on one backend against its real server, driven by Spring
 * Integration's own components ({@link LockRegistryLeaderInitiator}, {@link LockRequestHandlerAdvice},
 * {@link AggregatingMessageHandler}) and by the registry contract. Each test runs two "instances":
 * two clients on one server, each with its own registry; keys are unique per test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockRegistrySuite {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private LockClient clientA;
    private LockClient clientB;
    private MortiseLockRegistry registryA;
    private MortiseLockRegistry registryB;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** A fresh backend for one client (each client owns and closes its backend). */
    protected abstract LockBackend newBackend();

    @BeforeEach
    void setUp(TestInfo test) {
        String prefix = "si-" + test.getTestMethod().orElseThrow().getName() + "-" + UUID.randomUUID() + ":";
        clientA = LockClient.builder(newBackend()).build();
        clientB = LockClient.builder(newBackend()).build();
        registryA = new MortiseLockRegistry(clientA, prefix);
        registryB = new MortiseLockRegistry(clientB, prefix);
    }

    @AfterEach
    void tearDown() throws Exception {
        Collections.reverse(closeables);
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        clientA.close();
        clientB.close();
    }

    // ---- Spring Integration's LockRegistryLeaderInitiator -------------------------------------

    @Test
    void leaderInitiatorElectsOneLeaderAndHandsOverWhenItStops() {
        RecordingCandidate a = new RecordingCandidate("a");
        RecordingCandidate b = new RecordingCandidate("b");
        LockRegistryLeaderInitiator initiatorA = initiator(registryA, a);
        LockRegistryLeaderInitiator initiatorB = initiator(registryB, b);

        await().atMost(PATIENCE).until(() -> a.leader || b.leader);
        assertExactlyOneLeaderFor(Duration.ofSeconds(1), initiatorA, initiatorB);

        RecordingCandidate leader = a.leader ? a : b;
        RecordingCandidate follower = a.leader ? b : a;
        (leader == a ? initiatorA : initiatorB).stop();

        await().atMost(PATIENCE).until(() -> follower.leader);
        assertThat(leader.revoked.get()).as("the stopped leader was told it lost leadership").isEqualTo(1);
        assertThat(leader.leader).isFalse();
        assertThat(follower.granted.get()).isEqualTo(1);
    }

    @Test
    void leaderInitiatorHandsOverWhenTheLeaderYields() {
        RecordingCandidate a = new RecordingCandidate("a");
        RecordingCandidate b = new RecordingCandidate("b");
        LockRegistryLeaderInitiator initiatorA = initiator(registryA, a);
        LockRegistryLeaderInitiator initiatorB = initiator(registryB, b);

        await().atMost(PATIENCE).until(() -> a.leader || b.leader);
        RecordingCandidate leader = a.leader ? a : b;
        RecordingCandidate follower = a.leader ? b : a;
        LockRegistryLeaderInitiator leaderInitiator = leader == a ? initiatorA : initiatorB;

        leaderInitiator.getContext().yield();

        await().atMost(PATIENCE).until(() -> follower.granted.get() == 1);
        assertThat(leader.revoked.get()).isGreaterThanOrEqualTo(1);
        // The yielder is still running and stays a candidate: it may lead again later, never alongside.
        assertThat(leaderInitiator.isRunning()).isTrue();
        assertExactlyOneLeaderFor(Duration.ofMillis(500), initiatorA, initiatorB);
    }

    @Test
    void leaderInitiatorRevokesALeaderWhoseHoldWasLost() {
        RecordingCandidate a = new RecordingCandidate("a");
        LockRegistryLeaderInitiator initiatorA = initiator(registryA, a);
        await().atMost(PATIENCE).until(() -> a.leader);

        // The hold ends under the leader (as after a pause longer than its lease): no one else competes,
        // yet the leader must learn it lost the lock, not re-take it quietly and stay "leader".
        assertThat(clientA.forceRelease(((MortiseLock) registryA.obtain("leader")).key())).isTrue();

        await().atMost(PATIENCE).until(() -> a.revoked.get() == 1);
        // Still a candidate: it is elected again on a fresh hold.
        await().atMost(PATIENCE).until(() -> a.granted.get() == 2 && a.leader);
        assertThat(initiatorA.getContext().isLeader()).isTrue();
    }

    private LockRegistryLeaderInitiator initiator(MortiseLockRegistry registry, RecordingCandidate candidate) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        // Short heartbeat so the test is quick; a long busy wait so a yielder does not take it straight back.
        initiator.setHeartBeatMillis(200);
        initiator.setBusyWaitMillis(1000);
        initiator.start();
        closeables.add(initiator::destroy);
        return initiator;
    }

    private static void assertExactlyOneLeaderFor(Duration period, LockRegistryLeaderInitiator... initiators) {
        long end = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < end) {
            int leaders = 0;
            for (LockRegistryLeaderInitiator initiator : initiators) {
                leaders += initiator.getContext().isLeader() ? 1 : 0;
            }
            assertThat(leaders).as("leaders at one instant").isEqualTo(1);
            sleep(20);
        }
    }

    /** A candidate recording Spring Integration's callbacks. */
    static final class RecordingCandidate extends DefaultCandidate {
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();
        volatile boolean leader;

        RecordingCandidate(String id) {
            super(id, "leader");
        }

        @Override
        public void onGranted(Context ctx) {
            granted.incrementAndGet();
            leader = true;
        }

        @Override
        public void onRevoked(Context ctx) {
            leader = false;
            revoked.incrementAndGet();
        }
    }

    // ---- Spring Integration's LockRequestHandlerAdvice ----------------------------------------

    @Test
    void lockRequestHandlerAdviceSerialisesMessagesOfOneKeyAcrossInstances() throws Exception {
        Map<Object, AtomicInteger> inside = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        AbstractReplyProducingMessageHandler handlerA = guardedHandler(registryA, inside, overlaps, handled);
        AbstractReplyProducingMessageHandler handlerB = guardedHandler(registryB, inside, overlaps, handled);

        int perKey = 6;
        List<String> keys = List.of("order-1", "order-2");
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                for (String key : keys) {
                    AbstractReplyProducingMessageHandler handler = i % 2 == 0 ? handlerA : handlerB;
                    Message<String> message = MessageBuilder.withPayload(key + "#" + i).setHeader("orderId", key).build();
                    sent.add(pool.submit(() -> handler.handleMessage(message)));
                }
            }
            for (Future<?> future : sent) {
                future.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(handled.get()).isEqualTo(perKey * keys.size());
        assertThat(overlaps.get()).as("handlers running at once for one key").isZero();
    }

    private AbstractReplyProducingMessageHandler guardedHandler(MortiseLockRegistry registry,
            Map<Object, AtomicInteger> inside, AtomicInteger overlaps, AtomicInteger handled) {
        LockRequestHandlerAdvice advice = new LockRequestHandlerAdvice(registry,
                (Message<?> message) -> message.getHeaders().get("orderId"));
        advice.setWaitLockDuration(PATIENCE);
        AnnotationConfigApplicationContext context = integrationContext();
        context.getAutowireCapableBeanFactory().initializeBean(advice, "lockAdvice");
        AbstractReplyProducingMessageHandler handler = new AbstractReplyProducingMessageHandler() {
            @Override
            protected Object handleRequestMessage(Message<?> requestMessage) {
                AtomicInteger count = inside.computeIfAbsent(requestMessage.getHeaders().get("orderId"),
                        k -> new AtomicInteger());
                if (count.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                sleep(30);
                count.decrementAndGet();
                handled.incrementAndGet();
                return null;
            }
        };
        handler.setRequiresReply(false);
        handler.setAdviceChain(List.of(advice));
        context.getAutowireCapableBeanFactory().initializeBean(handler, "guardedHandler");
        return handler;
    }

    // ---- Spring Integration's aggregator --------------------------------------------------------

    @Test
    void aggregatorsOnTwoInstancesReleaseEveryGroupExactlyOnce() throws Exception {
        // One message store shared by both instances, as a JDBC or Redis message store would be:
        // only the registry's locks keep two aggregators from completing one group twice or losing a part.
        SimpleMessageStore store = new SimpleMessageStore();
        QueueChannel out = new QueueChannel();
        int groups = 12;
        int size = 4;
        Map<Object, AtomicInteger> inside = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AggregatingMessageHandler aggregatorA = aggregator(registryA, store, out, size, inside, overlaps);
        AggregatingMessageHandler aggregatorB = aggregator(registryB, store, out, size, inside, overlaps);

        List<Message<?>> messages = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            for (int n = 1; n <= size; n++) {
                messages.add(MessageBuilder.withPayload("g" + g + "-" + n).setCorrelationId("group-" + g)
                        .setSequenceNumber(n).setSequenceSize(size).build());
            }
        }
        Collections.shuffle(messages, new java.util.Random(21));
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (int i = 0; i < messages.size(); i++) {
                AggregatingMessageHandler aggregator = i % 2 == 0 ? aggregatorA : aggregatorB;
                Message<?> message = messages.get(i);
                sent.add(CompletableFuture.runAsync(() -> aggregator.handleMessage(message), pool));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        assertThat(overlaps.get()).as("aggregators inside one group's lock at once").isZero();
        Map<Object, List<?>> released = new HashMap<>();
        Message<?> result;
        while ((result = out.receive(0)) != null) {
            Object group = result.getHeaders().get("correlationId");
            assertThat(released.put(group, (List<?>) result.getPayload())).as("group %s released twice", group).isNull();
        }
        assertThat(released).hasSize(groups);
        Set<Object> parts = new HashSet<>();
        released.values().forEach(parts::addAll);
        assertThat(released.values()).allSatisfy(payload -> assertThat(payload).hasSize(size));
        assertThat(parts).hasSize(groups * size);
    }

    private AggregatingMessageHandler aggregator(MortiseLockRegistry registry, SimpleMessageStore store,
            QueueChannel out, int size, Map<Object, AtomicInteger> inside, AtomicInteger overlaps) {
        AggregatingMessageHandler aggregator = new AggregatingMessageHandler(
                new DefaultAggregatingMessageGroupProcessor(), store);
        // The aggregator asks the release strategy under the group's lock: count the instances inside
        // it at once for one group (a check that takes a moment, as one reading a database does).
        aggregator.setReleaseStrategy(group -> {
            AtomicInteger count = inside.computeIfAbsent(group.getGroupId(), k -> new AtomicInteger());
            if (count.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            sleep(10);
            count.decrementAndGet();
            return group.size() == size;
        });
        aggregator.setLockRegistry(registry);
        aggregator.setOutputChannel(out);
        integrationContext().getAutowireCapableBeanFactory().initializeBean(aggregator, "aggregator");
        return aggregator;
    }

    // ---- The registry contract ----------------------------------------------------------------

    @Test
    void excludesAcrossClients() throws Exception {
        DistributedLock a = registryA.obtain("job");
        DistributedLock b = registryB.obtain("job");
        a.lock();
        try {
            assertThat(otherThreadGets(b)).isFalse();
        } finally {
            a.unlock();
        }
        assertThat(inOtherThread(() -> {
            boolean locked = b.tryLock(5, TimeUnit.SECONDS);
            if (locked) {
                b.unlock();
            }
            return locked;
        })).isTrue();
    }

    @Test
    void isReentrantOnOneThreadAndSharesTheLockAcrossObtains() throws Exception {
        DistributedLock lock = registryA.obtain("job");
        assertThat(registryA.obtain("job")).isSameAs(lock);
        lock.lock();
        assertThat(registryA.obtain("job").tryLock()).as("the same thread again").isTrue();
        long token = ((MortiseLock) lock).fencingToken();
        registryA.obtain("job").unlock();
        assertThat(((MortiseLock) lock).fencingToken()).as("one hold, one token").isEqualTo(token);
        assertThat(otherThreadGets(registryB.obtain("job"))).as("still held after one unlock").isFalse();
        lock.unlock();
        assertThat(inOtherThread(() -> unlockAfter(registryB.obtain("job").tryLock(), registryB.obtain("job"))))
                .as("free after the last unlock").isTrue();
    }

    @Test
    void tryLockTimesOutWhileAnotherClientHolds() throws Exception {
        DistributedLock a = registryA.obtain("job");
        a.lock();
        try {
            long start = System.nanoTime();
            assertThat(inOtherThread(() -> registryB.obtain("job").tryLock(300, TimeUnit.MILLISECONDS))).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            assertThat(inOtherThread(() -> registryB.obtain("job").tryLock(Duration.ofMillis(200), Duration.ofSeconds(5))))
                    .isFalse();
        } finally {
            a.unlock();
        }
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() throws Exception {
        DistributedLock lock = registryA.obtain("job");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("job");
        lock.lock();
        try {
            Throwable thrown = inOtherThread(() -> {
                try {
                    lock.unlock();
                    return null;
                } catch (IllegalMonitorStateException e) {
                    return e;
                }
            });
            assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(otherThreadGets(registryB.obtain("job"))).as("still held by its owner").isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void explicitLeaseExpiresAndRenewLockExtendsIt() throws Exception {
        DistributedLock a = registryA.obtain("job");
        Duration ttl = clientA.shortestLease().compareTo(Duration.ofSeconds(2)) > 0 ? clientA.shortestLease()
                : Duration.ofSeconds(2);
        assertThat(a.tryLock(Duration.ZERO, ttl)).isTrue();
        registryA.renewLock("job", Duration.ofSeconds(30));
        sleep(ttl.toMillis() + 500);
        assertThat(otherThreadGets(registryB.obtain("job"))).as("renewed past its first lease").isFalse();
        registryA.renewLock("job");
        a.unlock();

        a.lock(ttl);
        // Not unlocked, not renewed: the server lets it go when the lease runs out.
        assertThat(inOtherThread(() -> unlockAfter(registryB.obtain("job").tryLock(PATIENCE.toMillis(),
                TimeUnit.MILLISECONDS), registryB.obtain("job")))).isTrue();
    }

    @Test
    void renewLockOnARenewedHoldChecksItAndRefusesAThreadThatDoesNotHoldIt() throws Exception {
        assertThatThrownBy(() -> registryA.renewLock("job")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job");
        DistributedLock lock = registryA.obtain("job");
        lock.lock();
        try {
            registryA.renewLock("job");
            assertThat(inOtherThread(() -> {
                try {
                    registryA.renewLock("job");
                    return null;
                } catch (IllegalStateException e) {
                    return e;
                }
            })).isInstanceOf(IllegalStateException.class);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aLostHoldIsNotReenteredAndTheNextLockStartsAfresh() throws Exception {
        MortiseLock lock = (MortiseLock) registryA.obtain("job");
        lock.lock();
        long token = lock.fencingToken();
        clientA.forceRelease(lock.key());

        assertThat(lock.tryLock()).as("re-entering a lost hold").isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).as("a fresh hold").isTrue();
        try {
            assertThat(lock.fencingToken()).isGreaterThan(token);
            assertThat(otherThreadGets(registryB.obtain("job"))).isFalse();
        } finally {
            lock.unlock();
        }

        lock.lock();
        clientA.forceRelease(lock.key());
        assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
        lock.lock();
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThanDropsOnlyIdleUnheldLocks() {
        DistributedLock held = registryA.obtain("held");
        DistributedLock idle = registryA.obtain("idle");
        held.lock();
        try {
            sleep(50);
            registryA.expireUnusedOlderThan(10);
            assertThat(registryA.cachedLocks()).isEqualTo(1);
            assertThat(registryA.obtain("held")).isSameAs(held);
            assertThat(registryA.obtain("idle")).isNotSameAs(idle);
        } finally {
            held.unlock();
        }
    }

    @Test
    void keysAreCheckedAndConvertedWithToString() throws Exception {
        assertThatThrownBy(() -> registryA.obtain(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        UUID id = UUID.randomUUID();
        assertThat(registryA.obtain(id)).isSameAs(registryA.obtain(id.toString()));
        DistributedLock lock = registryA.obtain(id);
        lock.lock();
        try {
            assertThat(((MortiseLock) lock).key()).endsWith(":" + id);
            assertThat(otherThreadGets(registryB.obtain(id.toString()))).isFalse();
        } finally {
            lock.unlock();
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** One Spring Integration application context per instance, as in a real deployment. */
    private AnnotationConfigApplicationContext integrationContext() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(IntegrationConfig.class);
        closeables.add(context);
        return context;
    }

    @Configuration
    @EnableIntegration
    static class IntegrationConfig {
    }

    /** Whether another thread gets {@code lock} at once (released again if it did). */
    private static boolean otherThreadGets(DistributedLock lock) throws Exception {
        return inOtherThread(() -> unlockAfter(lock.tryLock(), lock));
    }

    private static boolean unlockAfter(boolean locked, DistributedLock lock) {
        if (locked) {
            lock.unlock();
        }
        return locked;
    }

    private static <T> T inOtherThread(java.util.concurrent.Callable<T> work) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            return other.submit(work).get(PATIENCE.toSeconds() + 5, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
