package dev.mortise.lock.redis;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared (read) holds on one real redis-server, at the SPI level (backend.tryAcquire/acquire/renew/
 * release with {@link LockMode#SHARED} requests), each backend with its own Redisson client as a
 * process would have: readers coexist, writers exclude and are excluded, a waiting writer holds new
 * readers back, tokens come from one counter, releases wake the right waiters, and nothing a
 * timed-out or interrupted request created remains. Default mode here; {@link RedisFairReadWriteTest}
 * runs the same in fair mode, plus queue order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisReadWriteTest {

    static final Duration SLACK = Duration.ofSeconds(10);
    static final Duration LONG = Duration.ofSeconds(60);
    static RedisServer server;

    final List<AutoCloseable> closeables = new ArrayList<>();
    final ExecutorService threads = Executors.newCachedThreadPool();
    final Random random = new Random();
    /** Random keys: varying length, first character, Unicode, and a brace now and then. */
    final String key = List.of("rw:", "Ä", "{", "z", "読み")
            .get(random.nextInt(5)) + UUID.randomUUID().toString().substring(0, 4 + random.nextInt(30));
    final RedisKeys keys = RedisKeys.of("mortise", key);
    private final AtomicInteger owners = new AtomicInteger();

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
        threads.shutdownNow();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    /** A new backend (its own client, as another process); the fair variant overrides this. */
    LockBackend backend() {
        RedisLockBackend backend = RedisLockBackend.builder().address(server.address()).build();
        closeables.add(backend);
        return backend;
    }

    LockRequest shared(Duration lease) {
        return new LockRequest(key, "r-" + owners.incrementAndGet() + "-" + UUID.randomUUID(), lease, false,
                LockMode.SHARED);
    }

    LockRequest exclusive(Duration lease) {
        return new LockRequest(key, "w-" + owners.incrementAndGet() + "-" + UUID.randomUUID(), lease, false);
    }

    static Grant granted(Attempt attempt) {
        assertThat(attempt.isGranted()).as("granted").isTrue();
        return attempt.grant().orElseThrow();
    }

    Future<Optional<Grant>> waitFor(LockBackend backend, LockRequest request, Duration wait) {
        return threads.submit(() -> backend.acquire(request, wait));
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

    static String redis(String... command) {
        try {
            return server.command(command);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static long number(String reply) {
        return Long.parseLong(reply.substring(1));
    }

    long readers() {
        return number(redis("HLEN", keys.readers()));
    }

    long writersWaiting() {
        return number(redis("HLEN", keys.writers()));
    }

    /** Every record of the key but its counter: lock, readers, writer markers, queue, waiters. */
    long residue() {
        return number(redis("EXISTS", keys.lock(), keys.readers(), keys.writers(), keys.queue(), keys.waiters()));
    }

    // ---- the tests -------------------------------------------------------------------------------

    @Test
    void readersCoexistAndTheHashExpiresWithTheLatestReader() {
        LockBackend a = backend();
        LockBackend b = backend();
        assertThat(a.supportsSharedMode()).isTrue();
        Grant first = granted(a.tryAcquire(shared(Duration.ofSeconds(5))));
        Grant second = granted(b.tryAcquire(shared(Duration.ofSeconds(20))));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(readers()).isEqualTo(2);
        long pttl = number(redis("PTTL", keys.readers()));
        assertThat(pttl).as("the readers' PTTL is the latest reader's expiry").isBetween(10_000L, 20_000L);
        assertThat(redis("GET", keys.fence())).isEqualTo(Long.toString(second.fencingToken()));
        assertThat(a.release(second)).isTrue();
        assertThat(number(redis("PTTL", keys.readers()))).as("back to the remaining reader's expiry")
                .isBetween(1L, 5_000L);
        assertThat(b.release(first)).as("any backend releases by owner").isTrue();
        assertThat(residue()).isZero();
        assertThat(a.release(first)).as("idempotent; false once gone").isFalse();
    }

    @Test
    void readersExcludeAWriterAndAWriterExcludesReaders() {
        LockBackend a = backend();
        LockBackend b = backend();
        Grant reader = granted(a.tryAcquire(shared(Duration.ofSeconds(30))));
        Attempt writer = b.tryAcquire(exclusive(Duration.ofSeconds(30)));
        assertThat(writer.isGranted()).isFalse();
        assertThat(writer.holderRemaining()).hasValueSatisfying(d -> assertThat(d).isPositive());
        assertThat(writersWaiting()).as("tryAcquire never waits, so it leaves no marker").isZero();
        assertThat(a.release(reader)).isTrue();
        Grant held = granted(b.tryAcquire(exclusive(Duration.ofSeconds(30))));
        assertThat(held.fencingToken()).isGreaterThan(reader.fencingToken());
        assertThat(a.tryAcquire(shared(Duration.ofSeconds(30))).isGranted()).isFalse();
        assertThat(b.tryAcquire(exclusive(Duration.ofSeconds(30))).isGranted()).isFalse();
        assertThat(b.release(held)).isTrue();
        Grant again = granted(a.tryAcquire(shared(Duration.ofSeconds(30))));
        assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(a.release(again)).isTrue();
        assertThat(residue()).isZero();
    }

    @Test
    void aWaitingWriterHoldsNewReadersBackAndIsWokenByTheLastReader() throws Exception {
        LockBackend a = backend();
        LockBackend b = backend();
        LockBackend c = backend();
        Grant r1 = granted(a.tryAcquire(shared(LONG)));
        Grant r2 = granted(c.tryAcquire(shared(LONG)));
        Future<Optional<Grant>> writer = waitFor(b, exclusive(Duration.ofSeconds(30)), LONG);
        awaitWriterWaiting();
        assertThat(c.tryAcquire(shared(LONG)).isGranted()).as("a new reader waits behind the waiting writer")
                .isFalse();
        assertThat(a.release(r1)).isTrue();
        Thread.sleep(300);
        assertThat(writer.isDone()).as("one reader still holds").isFalse();
        long released = System.nanoTime();
        assertThat(c.release(r2)).isTrue();
        Grant w = writer.get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the last reader's release")
                .isLessThan(SLACK);
        assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
        assertThat(writersWaiting()).as("a granted writer's marker is gone").isZero();
        assertThat(b.release(w)).isTrue();
        assertThat(residue()).isZero();
    }

    /** Overridden by the fair variant, where the writer waits in the queue instead. */
    void awaitWriterWaiting() throws InterruptedException {
        await(SLACK, () -> writersWaiting() == 1, "the writer's marker");
    }

    @Test
    void aWritersReleaseWakesEveryWaitingReaderAtOnce() throws Exception {
        LockBackend holder = backend();
        Grant w = granted(holder.tryAcquire(exclusive(LONG)));
        List<Future<Optional<Grant>>> waiting = new ArrayList<>();
        List<LockBackend> backends = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockBackend backend = backend();
            backends.add(backend);
            waiting.add(waitFor(backend, shared(LONG), LONG));
        }
        awaitSubscribers(3);
        long released = System.nanoTime();
        assertThat(holder.release(w)).isTrue();
        List<Grant> readers = new ArrayList<>();
        for (Future<Optional<Grant>> future : waiting) {
            readers.add(future.get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow());
        }
        assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the release, not by the lease")
                .isLessThan(SLACK);
        assertThat(readers()).as("all three hold at once").isEqualTo(3);
        assertThat(readers.stream().map(Grant::fencingToken).distinct()).hasSize(3)
                .allSatisfy(t -> assertThat(t).isGreaterThan(w.fencingToken()));
        for (int i = 0; i < 3; i++) {
            assertThat(backends.get(i).release(readers.get(i))).isTrue();
        }
        assertThat(residue()).isZero();
    }

    /** Waits until {@code n} clients subscribe to the key's release channel (one per waiting backend). */
    void awaitSubscribers(int n) throws InterruptedException {
        await(SLACK, () -> subscribers() >= n, n + " waiters to subscribe");
    }

    long subscribers() {
        try {
            String[] lines = RedisCli.run(server.port(), "PUBSUB", "NUMSUB", keys.channel()).split("\n");
            return Long.parseLong(lines[lines.length - 1].trim());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void tokensStrictlyIncreaseOverMixedGrants() {
        LockBackend a = backend();
        LockBackend b = backend();
        long last = 0;
        List<Grant> readers = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            LockBackend on = i % 2 == 0 ? a : b;
            Grant grant;
            if (random.nextInt(3) == 0) {
                readers.forEach(r -> assertThat(a.release(r)).isTrue());
                readers.clear();
                grant = granted(on.tryAcquire(exclusive(Duration.ofSeconds(10))));
                assertThat(on.release(grant)).isTrue();
            } else {
                grant = granted(on.tryAcquire(shared(Duration.ofSeconds(10))));
                readers.add(grant);
            }
            assertThat(grant.fencingToken()).as("grant " + i).isGreaterThan(last);
            last = grant.fencingToken();
        }
        readers.forEach(r -> assertThat(b.release(r)).isTrue());
        assertThat(residue()).isZero();
    }

    @Test
    void aRetriedSharedRequestKeepsItsToken() {
        LockBackend a = backend();
        LockRequest request = shared(Duration.ofSeconds(10));
        Grant first = granted(a.tryAcquire(request));
        Grant other = granted(a.tryAcquire(shared(Duration.ofSeconds(10))));
        Grant again = granted(a.tryAcquire(request));
        assertThat(again.fencingToken()).isEqualTo(first.fencingToken()).isLessThan(other.fencingToken());
        assertThat(readers()).isEqualTo(2);
        a.release(first);
        a.release(other);
    }

    @Test
    void timedOutWaitsOfEitherModeLeaveNothing() throws Exception {
        LockBackend a = backend();
        LockBackend b = backend();
        Grant reader = granted(a.tryAcquire(shared(LONG)));
        assertThat(b.acquire(exclusive(LONG), Duration.ofMillis(400))).isEmpty();
        assertThat(writersWaiting()).as("the timed-out writer's marker").isZero();
        Grant secondReader = granted(b.tryAcquire(shared(LONG)));
        assertThat(a.release(reader)).isTrue();
        assertThat(a.release(secondReader)).isTrue();

        Grant writer = granted(a.tryAcquire(exclusive(LONG)));
        assertThat(b.acquire(shared(LONG), Duration.ofMillis(400))).isEmpty();
        assertThat(b.acquire(exclusive(LONG), Duration.ofMillis(400))).isEmpty();
        assertThat(a.release(writer)).isTrue();
        assertThat(residue()).as("records left on the server").isZero();
        await(SLACK, () -> subscribers() == 0, "the subscriptions to go");
    }

    @Test
    void interruptedWaitsOfEitherModeLeaveNothing() throws Exception {
        LockBackend a = backend();
        LockBackend b = backend();
        for (boolean sharedHolder : new boolean[] {true, false}) {
            Grant held = granted(a.tryAcquire(sharedHolder ? shared(LONG) : exclusive(LONG)));
            LockRequest waiter = sharedHolder ? exclusive(LONG) : shared(LONG);
            Future<Optional<Grant>> waiting = waitFor(b, waiter, LONG);
            awaitSubscribers(1);
            Thread.sleep(200);
            waiting.cancel(true);
            await(SLACK, () -> writersWaiting() == 0, "the interrupted writer's marker to go");
            assertThat(a.release(held)).isTrue();
            // cancel(true) returns before the interrupted waiter has withdrawn its queue entry (fair
            // mode): wait for it; an entry that is never withdrawn still fails.
            await(SLACK, () -> residue() == 0, "no records left after an interrupted " + waiter.mode() + " wait");
            // The next reader is not held back by anything the interrupted writer left.
            Grant next = granted(a.tryAcquire(shared(LONG)));
            assertThat(a.release(next)).isTrue();
            await(SLACK, () -> subscribers() == 0, "the subscription to go");
        }
    }

    @Test
    void aSharedHoldWithAShortLeaseExpiresAndIsGone() throws Exception {
        LockBackend a = backend();
        LockBackend b = backend();
        Grant reader = granted(a.tryAcquire(shared(Duration.ofMillis(300))));
        Future<Optional<Grant>> writer = waitFor(b, exclusive(LONG), LONG);
        Grant w = writer.get(SLACK.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(w.fencingToken()).isGreaterThan(reader.fencingToken());
        assertThat(a.renew(reader, Duration.ofSeconds(30))).as("an expired share cannot be renewed").isEmpty();
        assertThat(a.release(reader)).as("an expired share is no longer held").isFalse();
        assertThat(b.release(w)).isTrue();
        assertThat(residue()).isZero();
    }

    @Test
    void renewAllRenewsSharedAndExclusiveHoldsTogetherAndLingerShortensAShare() throws Exception {
        LockBackend a = backend();
        LockBackend b = backend();
        String otherKey = key + "-x";
        Grant r1 = granted(a.tryAcquire(shared(Duration.ofSeconds(2))));
        Grant r2 = granted(b.tryAcquire(shared(Duration.ofSeconds(2))));
        Grant w = granted(a.tryAcquire(new LockRequest(otherKey, "w-" + UUID.randomUUID(), Duration.ofSeconds(2),
                false)));
        assertThat(a.renewAll(List.of(r1, w, r2), Duration.ofSeconds(40)).gone()).isEmpty();
        assertThat(number(redis("PTTL", keys.readers()))).isGreaterThan(30_000);
        assertThat(number(redis("PTTL", RedisKeys.of("mortise", otherKey).lock()))).isGreaterThan(30_000);
        assertThat(a.linger(r1, Duration.ofMillis(300))).isTrue();
        assertThat(a.linger(r2, Duration.ofMillis(300))).isTrue();
        assertThat(number(redis("PTTL", keys.readers()))).as("the PTTL follows the shortened shares")
                .isBetween(1L, 300L);
        Thread.sleep(600);
        Set<Grant> gone = a.renewAll(List.of(r1, w, r2), Duration.ofSeconds(40)).gone();
        assertThat(gone).containsExactlyInAnyOrder(r1, r2);
        assertThat(residue()).as("only the exclusive hold of the other key").isZero();
        assertThat(a.release(w)).isTrue();
    }

    @Test
    void aCrashedWritersMarkerLapsesByItself() throws Exception {
        LockBackend a = backend();
        // A writer that crashed while waiting: its marker's deadline has passed.
        redis("HSET", keys.writers(), "ghost", "1");
        Grant reader = granted(a.tryAcquire(shared(LONG)));
        assertThat(writersWaiting()).as("the lapsed marker is pruned").isZero();
        // A live one holds readers back until it lapses.
        long now = Long.parseLong(RedisCli.run(server.port(), "TIME").split("\n")[0].trim()) * 1000;
        redis("HSET", keys.writers(), "ghost", Long.toString(now + 1500));
        assertThat(a.tryAcquire(shared(LONG)).isGranted()).isFalse();
        Grant later = a.acquire(shared(LONG), SLACK).orElseThrow();
        assertThat(later.fencingToken()).isGreaterThan(reader.fencingToken());
        a.release(reader);
        a.release(later);
        assertThat(residue()).isZero();
    }

    /**
     * Requests per operation, counted as {@code EVALSHA} calls in {@code INFO commandstats}: a shared
     * acquire, release and a mixed renewal take one each, and the exclusive path keeps its one each.
     */
    @Test
    void oneRoundTripPerOperationInEitherMode() throws Exception {
        LockBackend a = backend();
        a.ping();
        granted(a.tryAcquire(shared(LONG))); // loads the scripts and opens the connections
        long before = evalshas();
        Grant reader = granted(a.tryAcquire(shared(LONG)));
        assertThat(evalshas() - before).as("shared acquire").isEqualTo(1);
        before = evalshas();
        assertThat(a.renewAll(List.of(reader), LONG).gone()).isEmpty();
        assertThat(evalshas() - before).as("renewal").isEqualTo(1);
        before = evalshas();
        assertThat(a.release(reader)).isTrue();
        assertThat(evalshas() - before).as("shared release").isEqualTo(1);
        redis("DEL", keys.readers());
        before = evalshas();
        Grant writer = granted(a.tryAcquire(exclusive(LONG)));
        assertThat(evalshas() - before).as("exclusive acquire").isEqualTo(1);
        before = evalshas();
        assertThat(a.release(writer)).isTrue();
        assertThat(evalshas() - before).as("exclusive release").isEqualTo(1);
    }

    static long evalshas() throws Exception {
        for (String line : RedisCli.run(server.port(), "INFO", "commandstats").split("\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                int at = line.indexOf("calls=") + "calls=".length();
                return Long.parseLong(line.substring(at, line.indexOf(',', at)));
            }
        }
        return 0;
    }

    @Test
    void keyLayoutKeepsReadersAndMarkersInTheLocksSlot() {
        assertThat(keys.readers()).endsWith(keys.lock().substring(keys.lock().indexOf('{')))
                .startsWith("mortise:readers:{");
        assertThat(keys.writers()).endsWith(keys.lock().substring(keys.lock().indexOf('{')))
                .startsWith("mortise:writers:{");
    }
}
