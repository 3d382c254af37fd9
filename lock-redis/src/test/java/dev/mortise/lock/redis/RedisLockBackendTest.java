package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the single-server Redis backend does beyond the shared contract, on a real redis-server. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisLockBackendTest {

    private static final Duration SLACK = Duration.ofSeconds(5);
    static RedisServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String key = "single:" + UUID.randomUUID();
    private final RedisKeys keys = RedisKeys.of("mortise", key);

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private LockClient client(RedisServer on) {
        LockClient client = LockClient.builder(builder().address(on.address()).build())
                .defaultLease(Duration.ofSeconds(1)).build();
        closeables.add(client);
        return client;
    }

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder();
    }

    static void await(Duration max, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + max + " waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static int subscribers(String channel) {
        try {
            String[] lines = RedisCli.run(server.port(), "PUBSUB", "NUMSUB", channel).split("\n");
            return Integer.parseInt(lines[lines.length - 1].trim());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void keyLayoutPutsLockAndCounterUnderOneBraceFreeHashTag() throws Exception {
        String tricky = key + "{x}\n日";
        RedisKeys names = RedisKeys.of("mortise", tricky);
        try (LockLease lease = client(server).acquire(tricky, SLACK)) {
            assertThat(names.lock()).isEqualTo("mortise:lock:{" + key + "%7Bx%7D%0A%E6%97%A5}");
            assertThat(names.fence()).isEqualTo("mortise:fence:{" + key + "%7Bx%7D%0A%E6%97%A5}");
            assertThat(server.command("GET", names.lock())).isNotEqualTo("$-1");
            assertThat(server.command("PTTL", names.lock())).matches(":\\d+");
            assertThat(server.command("GET", names.fence())).isEqualTo(Long.toString(lease.fencingToken()));
        }
        assertThat(server.command("EXISTS", names.lock())).isEqualTo(":0");
        assertThat(server.command("PTTL", names.fence())).as("the counter never expires").isEqualTo(":-1");
    }

    @Test
    void waiterIsWokenByTheReleaseMessageNotByTheHoldersLease() throws Exception {
        LockClient a = client(server);
        LockClient b = client(server);
        LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
        CompletableFuture<LockLease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, Duration.ofSeconds(50)));
        await(SLACK, () -> subscribers(keys.channel()) == 1, "the waiter to subscribe to the release channel");
        long released = System.nanoTime();
        held.close();
        LockLease granted = waiter.get(30, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the release, long before the lease")
                .isLessThan(SLACK);
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        await(SLACK, () -> subscribers(keys.channel()) == 0, "the subscription to go once the wait ended");
    }

    @Test
    void interruptedAndTimedOutWaitsLeaveNoSubscription() throws Exception {
        LockClient a = client(server);
        LockClient b = client(server);
        try (LockLease held = a.acquire(key, SLACK)) {
            assertThat(held.isValid()).isTrue();
            assertThat(b.tryAcquire(key, Duration.ofMillis(300))).isEmpty();
            await(SLACK, () -> subscribers(keys.channel()) == 0, "no subscription after a timed-out wait");
            Thread waiter = new Thread(() -> {
                try {
                    b.acquire(key, Duration.ofSeconds(60)).close();
                } catch (RuntimeException expected) {
                    // interrupted
                }
            });
            waiter.start();
            await(SLACK, () -> subscribers(keys.channel()) == 1, "the waiter to subscribe");
            waiter.interrupt();
            waiter.join(SLACK.toMillis());
            assertThat(waiter.isAlive()).isFalse();
            await(SLACK, () -> subscribers(keys.channel()) == 0, "no subscription after an interrupted wait");
        }
    }

    private static long subscribeCalls() {
        try {
            for (String line : RedisCli.run(server.port(), "INFO", "commandstats").split("\n")) {
                if (line.startsWith("cmdstat_subscribe:")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    return Long.parseLong(line.substring(at, line.indexOf(',', at)));
                }
            }
            return 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void waitersOfOneKeyShareOneSubscriptionThatGoesAfterTheLast() throws Exception {
        LockClient a = client(server);
        RedisLockBackend backend = builder().address(server.address()).build();
        closeables.add(backend);
        LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
        long subscribedBefore = subscribeCalls();
        // Two waiters of one backend (through the SPI: a LockClient lets one thread per key through).
        List<CompletableFuture<dev.mortise.lock.spi.Grant>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            dev.mortise.lock.spi.LockRequest request = new dev.mortise.lock.spi.LockRequest(key, "waiter-" + i,
                    Duration.ofSeconds(60), false);
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return backend.acquire(request, Duration.ofSeconds(50)).orElseThrow();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        await(SLACK, () -> subscribers(keys.channel()) == 1, "the waiters to subscribe");
        Thread.sleep(1000); // let the second waiter join too; it must not subscribe again
        assertThat(subscribeCalls() - subscribedBefore).as("one SUBSCRIBE for both waiters").isEqualTo(1);

        held.close();
        dev.mortise.lock.spi.Grant granted = (dev.mortise.lock.spi.Grant) CompletableFuture
                .anyOf(waiters.get(0), waiters.get(1)).get(30, TimeUnit.SECONDS);
        assertThat(backend.release(granted)).isTrue();
        CompletableFuture<dev.mortise.lock.spi.Grant> other =
                waiters.get(0).getNow(null) == granted ? waiters.get(1) : waiters.get(0);
        dev.mortise.lock.spi.Grant second = other.get(30, TimeUnit.SECONDS);
        assertThat(second.owner()).isNotEqualTo(granted.owner());
        assertThat(backend.release(second)).isTrue();
        assertThat(subscribeCalls() - subscribedBefore).as("still one SUBSCRIBE").isEqualTo(1);
        await(SLACK, () -> subscribers(keys.channel()) == 0, "the subscription to go after the last waiter");
    }

    @Test
    void consecutiveWaitsForOneKeyReuseItsSubscription() throws Exception {
        LockClient a = client(server);
        LockClient b = client(server);
        try (LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)))) {
            assertThat(held.isValid()).isTrue();
            long subscribedBefore = subscribeCalls();
            int waits = 10;
            for (int i = 0; i < waits; i++) {
                assertThat(b.tryAcquire(key, Duration.ofMillis(50))).isEmpty();
            }
            // Back-to-back waits fall inside the linger; a wide bound, since a stalled machine can
            // let one lapse now and then. Subscribing per wait would make it 10.
            assertThat(subscribeCalls() - subscribedBefore).as("SUBSCRIBEs for %d consecutive waits", waits)
                    .isLessThanOrEqualTo(3);
        }
        await(SLACK, () -> subscribers(keys.channel()) == 0, "the subscription to go once nobody waits");
    }

    /**
     * Ping-pong between two clients (two threads each) on one key with a 60 s lease: a lost
     * wake-up would leave a waiter asleep until that lease ran out, far past the test's limit.
     */
    /** Script calls the server ran ({@code EVALSHA} and {@code EVAL}), from {@code INFO commandstats}. */
    private static long scriptCalls() {
        try {
            long calls = 0;
            for (String line : RedisCli.run(server.port(), "INFO", "commandstats").split("\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    calls += Long.parseLong(line.substring(at, line.indexOf(',', at)));
                }
            }
            return calls;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aWaitingWriterIsHandedTheLockByTheReleaseWithoutAskingAgain() throws Exception {
        LockClient a = client(server);
        LockClient b = client(server);
        b.tryAcquire(key + ":warm", Duration.ZERO).ifPresent(LockLease::close); // connected, scripts ready
        LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
        long before = scriptCalls();
        CompletableFuture<LockLease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(
                LockSpec.of(key).lease(Duration.ofSeconds(40)).waitFor(Duration.ofSeconds(50))));
        // A first wait on a key: a busy attempt, the subscription, one more attempt (a release between
        // the two is seen by the second); both have run once the server counted them.
        await(SLACK, () -> subscribers(keys.channel()) == 1 && scriptCalls() >= before + 2,
                "the waiter to subscribe and to be refused twice");
        assertThat(scriptCalls()).as("the waiter's attempts so far").isEqualTo(before + 2);
        held.close();
        LockLease granted = waiter.get(30, TimeUnit.SECONDS);
        assertThat(scriptCalls() - before).as("the waiter's two attempts and the release, no attempt after it")
                .isEqualTo(3);
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(granted.isValid()).isTrue();
        long pttl = Long.parseLong(server.command("PTTL", keys.lock()).substring(1));
        assertThat(pttl).as("the waiter's own 40 s lease, set by the release").isBetween(30_000L, 40_000L);
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        assertThat(server.command("EXISTS", keys.lock(), keys.writers(), keys.handOffs())).isEqualTo(":0");
    }

    @Test
    void aWaiterGivingUpAsTheLockIsHandedToItKeepsNothing() throws Exception {
        LockClient a = client(server);
        LockClient b = client(server);
        java.util.Random random = new java.util.Random(Long.getLong("mortise.seed", 19L));
        int tries = 0;
        for (int round = 0; round < 12; round++) {
            LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
            long waitMillis = 150;
            CompletableFuture<java.util.Optional<LockLease>> waiter = CompletableFuture.supplyAsync(() -> b.tryAcquire(
                    LockSpec.of(key).lease(Duration.ofSeconds(60)).waitFor(Duration.ofMillis(waitMillis))));
            await(SLACK, () -> subscribers(keys.channel()) == 1 || waiter.isDone(), "the waiter to subscribe or give up");
            if (subscribers(keys.channel()) != 1) {
                // Its 150 ms ran out before it subscribed (a busy machine: the busy attempt or the
                // first connect took that long). It never waited, so the round shows nothing: again.
                assertThat(++tries).as("rounds the waiter gave up before subscribing, out of " + (round + tries))
                        .isLessThan(100);
                assertThat(waiter.get(30, TimeUnit.SECONDS)).isEmpty();
                held.close();
                round--;
                continue;
            }
            // release around the moment the waiter gives up: before, at, or just after it
            Thread.sleep(waitMillis - 60 + random.nextInt(120));
            held.close();
            java.util.Optional<LockLease> got = waiter.get(30, TimeUnit.SECONDS);
            got.ifPresent(LockLease::close);
            await(SLACK, () -> {
                try {
                    return server.command("EXISTS", keys.lock(), keys.writers(), keys.handOffs()).equals(":0");
                } catch (java.io.IOException e) {
                    throw new AssertionError(e);
                }
            }, "round " + round + " (" + (got.isPresent() ? "granted" : "gave up")
                    + "): no lock, marker or hand-off offer left behind, long before the 60 s lease");
        }
    }

    @Test
    void aWaiterThatVanishedIsHandedTheLockOnlyWhileItsOfferIsFresh() throws Exception {
        LockClient a = client(server);
        client(server).tryAcquire(key + ":warm", Duration.ZERO).ifPresent(LockLease::close); // loads the scripts
        // A waiter whose process died right after its busy attempt (the attempt sent by hand).
        LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
        ghostAttempt("ghost-1", 5_000, 1_000);
        held.close();
        assertThat(server.command("GET", keys.lock())).as("handed over by the release").endsWith("ghost-1");
        long pttl = Long.parseLong(server.command("PTTL", keys.lock()).substring(1));
        assertThat(pttl).as("the vanished waiter's own lease, no longer").isBetween(1L, 5_000L);
        server.command("DEL", keys.lock());

        held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)));
        ghostAttempt("ghost-2", 5_000, 300);
        Thread.sleep(600); // its offer lapses (300 ms); its marker (for readers) lives on
        held.close();
        assertThat(server.command("EXISTS", keys.lock())).as("a stale offer is not taken up").isEqualTo(":0");
        assertThat(server.command("EXISTS", keys.handOffs())).isEqualTo(":0");
    }

    /** A waiting exclusive attempt of {@code owner} sent by hand: marks it and offers a hand-off for {@code window} ms. */
    private void ghostAttempt(String owner, long lease, long window) throws Exception {
        String reply = server.command("EVAL", dev.mortise.lock.redis.internal.ExclusiveCommands.ACQUIRE.source(), "6",
                keys.lock(), keys.fence(), keys.cancelled(owner), keys.readers(), keys.writers(), keys.handOffs(),
                owner, Long.toString(lease), "0", "10000", "30000", Long.toString(window));
        assertThat(reply).as("refused: the holder's PTTL, not readers, the fence counter").startsWith("*4");
        assertThat(server.command("HEXISTS", keys.handOffs(), owner)).isEqualTo(":1");
    }

    @Test
    void aHandOffMessageThatComesAfterTheWaitersNextRefusalIsNoGrant() throws Exception {
        staleHandOff(false);
    }

    @Test
    void aHandOffMessageThatComesAfterTheWaitersNextRefusalIsNoGrantInFairMode() throws Exception {
        staleHandOff(true);
    }

    /**
     * A waiter handed the lock whose hand-off message is late (a paused process, a slow pub/sub
     * connection): its handed lease runs out unused, another client takes the key, the waiter's own
     * timer sends an attempt that is refused, and only then does the message come. Granting on it
     * would count the stale hand-off's lease from that refused attempt, while the other client holds.
     */
    private void staleHandOff(boolean fair) throws Exception {
        try (dev.mortise.lock.tck.server.StallingProxy proxy = new dev.mortise.lock.tck.server.StallingProxy(server.port())) {
            LockClient a = LockClient.builder(builder().address(server.address()).fair(fair).build()).build();
            LockClient c = LockClient.builder(builder().address(server.address()).fair(fair).build()).build();
            LockClient w = LockClient.builder(builder().address(proxy.redisAddress()).fair(fair).build()).build();
            closeables.add(a);
            closeables.add(c);
            closeables.add(w);
            w.tryAcquire(key + ":warm", Duration.ZERO).ifPresent(LockLease::close); // connected, scripts ready
            c.tryAcquire(key + ":warm", Duration.ZERO).ifPresent(LockLease::close);
            LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(3)));
            long before = scriptCalls();
            // The handed lease must run out before the waiter's next attempt: in fair mode that is its
            // heartbeat (at most 1 s); in the default mode a's lease (3 s), and the offer (a third of
            // the lease) must still be fresh when a releases.
            Duration handed = Duration.ofMillis(fair ? 400 : 1500);
            CompletableFuture<java.util.Optional<LockLease>> waiter = CompletableFuture.supplyAsync(() -> w.tryAcquire(
                    LockSpec.of(key).lease(handed).waitFor(Duration.ofSeconds(8))));
            await(SLACK, () -> subscribers(keys.channel()) == 1 && scriptCalls() >= before + 2,
                    "the waiter to subscribe and to be refused twice");
            // c must take the key before the waiter's next attempt, however slow this machine: in fair
            // mode c queues behind the waiter before the release, so the waiter, dequeued by its hand-off,
            // can only ask again behind c (a ci22 run at load 15 saw a c that asked after the release lose
            // the freed key to the waiter's heartbeat).
            CompletableFuture<LockLease> taking = fair ? queueBehindWaiter(c, proxy) : null;
            proxy.holdIncoming(keys.channel()); // the next message on the key's channel comes late
            held.close(); // hands the key to the waiter: a lease it will not hear of in time
            assertThat(proxy.awaitHeld(SLACK)).as("the hand-off message held back").isTrue();
            LockLease taken = fair ? taking.get(15, TimeUnit.SECONDS)
                    : c.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)).waitFor(Duration.ofSeconds(10)));
            long afterTaken = scriptCalls();
            // The waiter's own timer (a's 3 s lease) sends an attempt, refused: c holds the key.
            await(Duration.ofSeconds(10), () -> scriptCalls() > afterTaken, "the waiter's next attempt");
            Thread.sleep(300); // its refusal read before the message comes
            proxy.letGo();
            java.util.Optional<LockLease> got = waiter.get(30, TimeUnit.SECONDS);
            boolean takenValid = taken.isValid();
            got.ifPresent(lease -> {
                try {
                    lease.close();
                } catch (RuntimeException lost) {
                    // the server never had it for this waiter: reported lost
                }
            });
            assertThat(got).as("granted on a stale hand-off while another client held the key").isEmpty();
            assertThat(takenValid).isTrue();
            taken.close();
        }
    }

    /** Fair mode: how many owners wait in the key's queue. */
    private long queued() {
        try {
            return Long.parseLong(server.command("HLEN", keys.waiters()).substring(1).trim());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Fair mode: starts c's acquire of the key and returns once c waits in the queue behind the
     * waiter, right after the waiter's heartbeat was applied (so the handed lease, counted from that
     * attempt, ends before the waiter's next one).
     */
    private CompletableFuture<LockLease> queueBehindWaiter(LockClient c, dev.mortise.lock.tck.server.StallingProxy proxy)
            throws InterruptedException {
        CompletableFuture<LockLease> taking = CompletableFuture.supplyAsync(() -> c.acquire(
                LockSpec.of(key).lease(Duration.ofSeconds(60)).waitFor(Duration.ofSeconds(15))));
        await(SLACK, () -> queued() == 2, "c queued behind the waiter");
        assertThat(taking).as("c refused while a holds").isNotDone();
        proxy.holdReply(keys.lock()); // the waiter's next heartbeat: applied, its answer held a moment
        assertThat(proxy.awaitHeld(SLACK)).as("the waiter's heartbeat applied").isTrue();
        proxy.letGo();
        return taking;
    }

    @Test
    void manyQuickHandOffsLoseNoWakeUp() throws Exception {
        manyQuickHandOffs(false);
    }

    @Test
    void manyQuickHandOffsLoseNoWakeUpInFairMode() throws Exception {
        manyQuickHandOffs(true);
    }

    private void manyQuickHandOffs(boolean fair) throws Exception {
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            LockClient client = LockClient.builder(builder().address(server.address()).fair(fair)
                    .build()).build();
            closeables.add(client);
            clients.add(client);
        }
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger grants = new java.util.concurrent.atomic.AtomicInteger();
        int rounds = 40;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        closeables.add(pool::shutdownNow);
        List<CompletableFuture<Void>> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            LockClient client = clients.get(t % 2);
            threads.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (LockLease lease = client.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60))
                            .waitFor(Duration.ofSeconds(30)))) {
                        assertThat(inside.incrementAndGet()).as("one holder at a time").isEqualTo(1);
                        grants.incrementAndGet();
                        inside.decrementAndGet();
                    }
                }
            }, pool));
        }
        CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
        assertThat(grants.get()).isEqualTo(4 * rounds);
        await(SLACK, () -> subscribers(keys.channel()) == 0, "no subscription once nobody waits");
        assertThat(server.command("EXISTS", keys.lock(), keys.queue(), keys.waiters())).isEqualTo(":0");
    }

    @Test
    void flushedScriptCacheIsReloadedTransparently() throws Exception {
        LockClient a = client(server);
        long first;
        try (LockLease lease = a.acquire(key, SLACK)) {
            first = lease.fencingToken();
        }
        assertThat(server.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
        try (LockLease lease = a.acquire(key, SLACK)) {
            assertThat(lease.fencingToken()).as("the reloaded acquire script bumped the counter").isGreaterThan(first);
        }
        assertThat(server.command("EXISTS", keys.lock())).isEqualTo(":0");
    }

    /**
     * A script the server no longer knows costs one {@code EVAL} after the {@code EVALSHA} that
     * learned so, and nothing more. Redisson 4's {@code useScriptCache} (on by default) used to turn
     * that {@code EVAL} into another {@code EVALSHA}, a {@code SCRIPT LOAD} and a third
     * {@code EVALSHA}: four requests for the first use of each script on a client Mortise built.
     */
    @Test
    void aScriptTheServerLostCostsOneEvalAndNothingElse() throws Exception {
        try (RedisServer own = new RedisServer()) {
            own.start();
            LockClient a = client(own);
            a.acquire(key, SLACK).close(); // connects and caches both scripts
            assertThat(own.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
            assertThat(own.command("CONFIG", "RESETSTAT")).isEqualTo("+OK");
            a.acquire(key, SLACK).close();
            java.util.Map<String, Long> calls = new java.util.TreeMap<>();
            for (String line : RedisCli.run(own.port(), "INFO", "commandstats").split("\n")) {
                if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    calls.put(line.substring("cmdstat_".length(), line.indexOf(':')),
                            Long.parseLong(line.substring(at, line.indexOf(',', at))));
                }
            }
            assertThat(calls).as("acquire and release: each an EVALSHA answered NOSCRIPT, then one EVAL (all: %s)",
                    calls).containsEntry("evalsha", 2L).containsEntry("eval", 2L);
            assertThat(calls.keySet()).as("no SCRIPT LOAD or other command of the client").noneMatch(
                    command -> command.startsWith("script") || command.equals("ping"));
        }
    }

    @Test
    void restartWithoutPersistenceLosesTheHoldAndFiresOnLost() throws Exception {
        try (RedisServer own = new RedisServer()) {
            own.start();
            LockClient a = client(own);
            AtomicReference<LockLostEvent> lost = new AtomicReference<>();
            LockLease lease = a.acquire(key, SLACK).onLost(lost::set);
            own.restart();
            await(Duration.ofSeconds(1).plus(SLACK), () -> lost.get() != null, "onLost after the server forgot the hold");
            assertThat(lease.isValid()).isFalse();
            assertThat(lost.get().key()).isEqualTo(key);
        }
    }

    @Test
    void aclUserAndPasswordPassThrough() throws Exception {
        try (RedisServer own = new RedisServer()) {
            // AUTH is switched on after start: the launcher's readiness PING has no password.
            own.start();
            assertThat(own.command("ACL", "SETUSER", "locker", "on", ">pw", "~mortise:*", "&mortise:*", "+@all"))
                    .isEqualTo("+OK");
            assertThat(own.command("CONFIG", "SET", "requirepass", "s3cret")).isEqualTo("+OK");
            LockBackendWith acl = new LockBackendWith(builder().address(own.address())
                    .credentials("locker", "pw").build());
            closeables.add(acl);
            LockBackendWith password = new LockBackendWith(builder().address(own.address())
                    .credentials(null, "s3cret").build());
            closeables.add(password);
            try (LockLease lease = acl.client.acquire(key, SLACK)) {
                assertThat(lease.fencingToken()).isPositive();
                assertThat(password.client.tryAcquire(key)).as("held by the ACL user").isEmpty();
            }
            LockBackendWith wrong = new LockBackendWith(builder().address(own.address())
                    .credentials("locker", "wrong").operationTimeout(Duration.ofSeconds(1)).build());
            closeables.add(wrong);
            assertThatThrownBy(() -> wrong.client.tryAcquire(key)).isInstanceOf(dev.mortise.lock.LockBackendException.class)
                    .hasMessageContaining(key).hasMessageContaining("redis");
        }
    }

    @Test
    void suppliedRedissonClientIsUsedAndLeftOpen() throws Exception {
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.useSingleServer().setAddress(server.address());
        org.redisson.api.RedissonClient redisson = org.redisson.Redisson.create(config);
        try {
            LockClient locks = LockClient.builder(RedisLockBackend.builder().client(redisson).build()).build();
            try (LockLease lease = locks.acquire(key, SLACK)) {
                assertThat(server.command("GET", keys.fence())).isEqualTo(Long.toString(lease.fencingToken()));
            }
            locks.close();
            assertThat(redisson.isShutdown()).as("the application's client stays open").isFalse();
            assertThat(redisson.getKeys().countExists(keys.fence())).isEqualTo(1);
        } finally {
            redisson.shutdown();
        }
    }

    /** A client with the backend it closes. */
    private static final class LockBackendWith implements AutoCloseable {
        final LockClient client;

        LockBackendWith(RedisLockBackend backend) {
            this.client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(1)).build();
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
