package dev.mortise.lock.etcd;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.mortise.lock.etcd.EtcdLockBackendTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared (read) mode at the SPI level against a real single-member etcd: readers together,
 * a writer alone, a waiting writer keeping later readers out across clients, tokens from the
 * one revision counter, the right waiters woken, nothing left by timed-out or interrupted
 * waiters (counted on the server), expiry, renewal and linger of shared holds, and the
 * requests each shared operation sends. Every backend here is a separate client.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdSharedModeTest extends EtcdServerPerClass {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    /** How long a request that must keep waiting is given to show it does not (a wide margin, never a bound). */
    private static final long STILL_WAITING_MS = 400;
    private static final String[] KEY_FORMS = {"rw:%s", "ä/%s", "{%s}", "%s", "読み書き %s", "a/b#%s", "\uD83D\uDD12%s"};

    /** A thread per waiter: the common pool may have fewer threads than the waiters a test needs. */
    private static final ExecutorService WAITERS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "shared-mode-test-waiter");
        thread.setDaemon(true);
        return thread;
    });

    private final Random random = new Random();
    private final List<EtcdLockBackend> backends = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeBackends() {
        backends.forEach(EtcdLockBackend::close);
    }

    private EtcdLockBackend backend() {
        EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build();
        backends.add(backend);
        return backend;
    }

    private String key() {
        return String.format(KEY_FORMS[random.nextInt(KEY_FORMS.length)], UUID.randomUUID());
    }

    private static LockRequest shared(String key) {
        return new LockRequest(key, owner(), LEASE, true, LockMode.SHARED);
    }

    private static LockRequest exclusive(String key) {
        return new LockRequest(key, owner(), LEASE, true, LockMode.EXCLUSIVE);
    }

    private static String owner() {
        return UUID.randomUUID() + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Grant granted(Attempt attempt) {
        return attempt.grant().orElseThrow(() -> new AssertionError("expected a grant, the lock was busy"));
    }

    private static CompletableFuture<Grant> waitFor(EtcdLockBackend backend, LockRequest request) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return backend.acquire(request, LONG_WAIT).orElseThrow(() -> new AssertionError(
                        "not granted within " + LONG_WAIT + ": " + request));
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        }, WAITERS);
    }

    private static Grant get(CompletableFuture<Grant> waiting) throws Exception {
        return waiting.get(20, TimeUnit.SECONDS);
    }

    private static int keyCount(String key) {
        try {
            return etcd.keysOf(key).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<Long> revisionsOnServer(String key) throws Exception {
        return etcd.keysOf(key).stream().map(KeyValue::getCreateRevision).toList();
    }

    @Test
    void readersHoldTogetherAndKeepAWriterOut() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = key();
        Grant first = granted(a.tryAcquire(shared(key)));
        Grant second = granted(b.tryAcquire(shared(key)));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

        assertThat(b.tryAcquire(exclusive(key)).isGranted()).isFalse();
        assertThat(a.acquire(exclusive(key), Duration.ofMillis(500))).isEmpty();
        assertThat(revisionsOnServer(key)).containsExactly(first.fencingToken(), second.fencingToken());

        assertThat(a.release(first)).isTrue();
        assertThat(b.tryAcquire(exclusive(key)).isGranted()).as("one reader still holds").isFalse();
        assertThat(b.release(second)).isTrue();
        Grant writer = granted(a.tryAcquire(exclusive(key)));
        assertThat(writer.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(a.release(writer)).isTrue();
        assertThat(keyCount(key)).isZero();
    }

    @Test
    void aWriterKeepsReadersOut() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = key();
        Grant writer = granted(a.tryAcquire(exclusive(key)));
        assertThat(b.tryAcquire(shared(key)).isGranted()).isFalse();
        assertThat(b.acquire(shared(key), Duration.ofMillis(500))).isEmpty();
        assertThat(a.tryAcquire(shared(key)).isGranted()).as("the same client, another hold").isFalse();
        assertThat(revisionsOnServer(key)).containsExactly(writer.fencingToken());
        assertThat(a.release(writer)).isTrue();
        Grant reader = granted(b.tryAcquire(shared(key)));
        assertThat(reader.fencingToken()).isGreaterThan(writer.fencingToken());
        assertThat(b.release(reader)).isTrue();
    }

    @Test
    void aWaitingWriterKeepsNewReadersOutAcrossClients() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        EtcdLockBackend c = backend();
        String key = key();
        Grant reader = granted(a.tryAcquire(shared(key)));
        CompletableFuture<Grant> writer = waitFor(b, exclusive(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 2, "the writer queued");

        assertThat(c.tryAcquire(shared(key)).isGranted()).as("a writer waits: a new reader is not granted").isFalse();
        assertThat(a.tryAcquire(shared(key)).isGranted()).as("not even by the reader's own client").isFalse();
        CompletableFuture<Grant> laterReader = waitFor(c, shared(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 3, "the later reader queued");
        Thread.sleep(STILL_WAITING_MS);
        assertThat(writer).isNotDone();
        assertThat(laterReader).isNotDone();

        assertThat(a.release(reader)).isTrue();
        Grant written = get(writer);
        assertThat(written.fencingToken()).isGreaterThan(reader.fencingToken());
        Thread.sleep(STILL_WAITING_MS);
        assertThat(laterReader).as("the writer holds").isNotDone();

        assertThat(b.release(written)).isTrue();
        Grant read = get(laterReader);
        assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
        assertThat(c.release(read)).isTrue();
        assertThat(keyCount(key)).isZero();
    }

    @Test
    void aWritersReleaseWakesEveryReaderBehindItAndTheLastReaderWakesTheNextWriter() throws Exception {
        String key = key();
        EtcdLockBackend holder = backend();
        Grant writer = granted(holder.tryAcquire(exclusive(key)));
        List<EtcdLockBackend> readerClients = List.of(backend(), backend(), backend());
        List<CompletableFuture<Grant>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            readers.add(waitFor(readerClients.get(i % readerClients.size()), shared(key))); // two on one client
            int queued = i + 2;
            await(Duration.ofSeconds(10), () -> keyCount(key) == queued, "reader " + i + " queued");
        }
        EtcdLockBackend nextWriterClient = backend();
        CompletableFuture<Grant> nextWriter = waitFor(nextWriterClient, exclusive(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 6, "the next writer queued");
        CompletableFuture<Grant> lastReader = waitFor(readerClients.get(0), shared(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 7, "the last reader queued");

        assertThat(holder.release(writer)).isTrue();
        List<Grant> reads = new ArrayList<>();
        for (CompletableFuture<Grant> reader : readers) {
            reads.add(get(reader));
        }
        assertThat(reads).extracting(Grant::fencingToken).allMatch(token -> token > writer.fencingToken())
                .doesNotHaveDuplicates();
        Thread.sleep(STILL_WAITING_MS);
        assertThat(nextWriter).isNotDone();
        assertThat(lastReader).as("it queued behind a waiting writer").isNotDone();

        // Readers leave newest first: the writer watches the newest reader, so it wakes, looks, and waits again.
        List<Grant> newestFirst = new ArrayList<>(reads);
        Collections.reverse(newestFirst);
        for (int i = 0; i < newestFirst.size(); i++) {
            Grant read = newestFirst.get(i);
            assertThat(readerClients.get(reads.indexOf(read) % readerClients.size()).release(read)).isTrue();
            if (i < newestFirst.size() - 1) {
                Thread.sleep(STILL_WAITING_MS / 2);
                assertThat(nextWriter).as("%d readers still hold", newestFirst.size() - 1 - i).isNotDone();
            }
        }
        Grant written = get(nextWriter);
        assertThat(written.fencingToken()).isGreaterThan(reads.stream().mapToLong(Grant::fencingToken).max()
                .orElseThrow());
        Thread.sleep(STILL_WAITING_MS / 2);
        assertThat(lastReader).isNotDone();
        assertThat(nextWriterClient.release(written)).isTrue();
        Grant read = get(lastReader);
        assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
        assertThat(readerClients.get(0).release(read)).isTrue();
        assertThat(keyCount(key)).isZero();
    }

    @Test
    void tokensIncreaseStrictlyOverMixedGrantsOfOneKey() throws Exception {
        long seed = System.nanoTime();
        Random actions = new Random(seed);
        List<EtcdLockBackend> clients = List.of(backend(), backend());
        String key = key();
        List<Grant> readers = new ArrayList<>();
        List<EtcdLockBackend> readersOn = new ArrayList<>();
        long highest = 0;
        for (int step = 0; step < 60; step++) {
            EtcdLockBackend client = clients.get(actions.nextInt(clients.size()));
            int action = actions.nextInt(3);
            if (action == 0 && !readers.isEmpty()) {
                int which = actions.nextInt(readers.size());
                assertThat(readersOn.remove(which).release(readers.remove(which))).isTrue();
                continue;
            }
            boolean wantShared = action != 2 || !readers.isEmpty() && actions.nextBoolean();
            Attempt attempt = client.tryAcquire(wantShared ? shared(key) : exclusive(key));
            if (!wantShared && !readers.isEmpty()) {
                assertThat(attempt.isGranted()).as("seed %d step %d: a writer while readers hold", seed, step)
                        .isFalse();
                continue;
            }
            Grant grant = granted(attempt);
            assertThat(grant.fencingToken()).as("seed %d step %d", seed, step).isGreaterThan(highest);
            highest = grant.fencingToken();
            if (wantShared) {
                readers.add(grant);
                readersOn.add(client);
            } else {
                assertThat(client.release(grant)).isTrue();
            }
        }
        for (int i = 0; i < readers.size(); i++) {
            assertThat(readersOn.get(i).release(readers.get(i))).isTrue();
        }
        assertThat(keyCount(key)).isZero();
    }

    @Test
    void timedOutAndInterruptedWaitersOfEitherModeLeaveNothingOnTheServer() throws Exception {
        EtcdLockBackend holder = backend();
        EtcdLockBackend waiter = backend();
        String key = key();
        Grant writer = granted(holder.tryAcquire(exclusive(key)));
        assertThat(waiter.acquire(shared(key), Duration.ofMillis(600))).isEmpty();
        assertThat(waiter.acquire(new LockRequest(key, owner(), LEASE, false, LockMode.SHARED),
                Duration.ofMillis(600))).as("an explicit lease of its own").isEmpty();
        interruptWhileWaiting(waiter, shared(key), key, 2);
        assertThat(revisionsOnServer(key)).containsExactly(writer.fencingToken());
        assertThat(holder.release(writer)).isTrue();

        Grant reader = granted(holder.tryAcquire(shared(key)));
        assertThat(waiter.acquire(exclusive(key), Duration.ofMillis(600))).isEmpty();
        assertThat(waiter.acquire(new LockRequest(key, owner(), LEASE, false, LockMode.EXCLUSIVE),
                Duration.ofMillis(600))).isEmpty();
        interruptWhileWaiting(waiter, exclusive(key), key, 2);
        assertThat(revisionsOnServer(key)).containsExactly(reader.fencingToken());
        assertThat(holder.release(reader)).isTrue();
        assertThat(keyCount(key)).isZero();
    }

    private static void interruptWhileWaiting(EtcdLockBackend backend, LockRequest request, String key, int queued)
            throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                outcome.set(backend.acquire(request, LONG_WAIT));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        thread.start();
        await(Duration.ofSeconds(10), () -> keyCount(key) == queued, "the waiter queued");
        // The key is on the server before the queueing call returns; an interrupt during that call is a failed call
        // (LockBackendException, the key removed in the background), not an interrupted wait: interrupt the wait.
        await(Duration.ofSeconds(10), () -> parkedInTheQueue(thread), "the waiter waiting on its watch");
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(thread.isAlive()).isFalse();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    /** The thread sleeps between two steps of its wait (WaitDriver's sleep on the stay's wake-up), not in a call to etcd. */
    private static boolean parkedInTheQueue(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        boolean inWaiter = false;
        boolean parked = false;
        for (StackTraceElement frame : stack) {
            inWaiter |= frame.getClassName().equals("dev.mortise.lock.spi.WaitDriver")
                    && frame.getMethodName().equals("sleep");
            parked |= frame.getClassName().equals("java.util.concurrent.CompletableFuture");
        }
        return inWaiter && parked;
    }

    @Test
    void aWriterThatStopsWaitingLetsTheReadersQueuedBehindItIn() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = key();
        Grant reader = granted(a.tryAcquire(shared(key)));
        CompletableFuture<Optional<Grant>> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return b.acquire(exclusive(key), Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        }, WAITERS);
        await(Duration.ofSeconds(10), () -> keyCount(key) == 2, "the writer queued");
        CompletableFuture<Grant> laterReader = waitFor(a, shared(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 3, "the later reader queued");
        assertThat(writer.get(20, TimeUnit.SECONDS)).as("the first reader still holds").isEmpty();
        Grant read = get(laterReader);
        assertThat(read.fencingToken()).isGreaterThan(reader.fencingToken());
        assertThat(revisionsOnServer(key)).containsExactly(reader.fencingToken(), read.fencingToken());
        assertThat(a.release(reader)).isTrue();
        assertThat(a.release(read)).isTrue();
    }

    @Test
    void aSharedHoldEndsWithItsLeaseOrSession() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = key();
        // An explicit lease nobody renews: etcd expires it (2 s is the launcher's minimum TTL).
        Grant expiring = granted(a.tryAcquire(new LockRequest(key, owner(), Duration.ofSeconds(2), false,
                LockMode.SHARED)));
        Grant writer = b.acquire(exclusive(key), LONG_WAIT).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(expiring.fencingToken());
        assertThat(a.release(expiring)).as("it expired on the server").isFalse();
        assertThat(b.release(writer)).isTrue();

        // A reader on a session whose lease ends (revoked here, as an expiry of a crashed client's session would).
        Grant onSession = granted(a.tryAcquire(shared(key)));
        CompletableFuture<Grant> next = waitFor(b, exclusive(key));
        await(Duration.ofSeconds(10), () -> keyCount(key) == 2, "the writer queued");
        etcd.revoke(etcd.keysOf(key).get(0).getLease());
        Grant written = get(next);
        assertThat(written.fencingToken()).isGreaterThan(onSession.fencingToken());
        assertThat(b.release(written)).isTrue();
    }

    @Test
    void renewalMovesAndLingerWorkForSharedHoldsAsForExclusiveOnes() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String readKey = key();
        String otherReadKey = key();
        String writeKey = key();
        Grant read = granted(a.tryAcquire(shared(readKey)));
        Grant otherRead = granted(a.tryAcquire(shared(otherReadKey)));
        Grant write = granted(a.tryAcquire(exclusive(writeKey)));
        Grant sharedByB = granted(b.tryAcquire(shared(readKey)));
        List<Grant> held = List.of(read, otherRead, write);

        assertThat(a.renewAll(held, LEASE).gone()).isEmpty();
        admin.getKVClient().delete(etcd.keysOf(otherReadKey).get(0).getKey()).get(10, TimeUnit.SECONDS);
        assertThat(a.renewAll(held, LEASE).gone()).as("a reader key deleted behind our back").containsExactly(otherRead);

        // Another TTL moves the key to another lease; the token (its create revision) stays.
        assertThat(a.renew(read, Duration.ofSeconds(5))).contains(Duration.ofSeconds(5));
        assertThat(revisionsOnServer(readKey)).containsExactly(read.fencingToken(), sharedByB.fencingToken());
        assertThat(a.renewAll(List.of(read, write), Duration.ofSeconds(5)).gone()).isEmpty();

        // Linger: the shared hold stays on the server for its linger, then ends by itself.
        assertThat(b.release(sharedByB)).isTrue();
        assertThat(a.linger(read, Duration.ofSeconds(2))).isTrue();
        assertThat(b.tryAcquire(exclusive(readKey)).isGranted()).as("the lingering reader still holds").isFalse();
        Grant writer = b.acquire(exclusive(readKey), LONG_WAIT).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(read.fencingToken());
        assertThat(b.release(writer)).isTrue();
        assertThat(a.release(write)).isTrue();
    }

    @Test
    void aReaderKeyAndAWriterKeyOfOneLockShareItsPrefixOnly() throws Exception {
        EtcdLockBackend a = backend();
        String key = key();
        String lookAlike = key + "/#";
        Grant reader = granted(a.tryAcquire(shared(key)));
        Grant other = granted(a.tryAcquire(exclusive(lookAlike)));
        assertThat(etcd.keysOf(key)).hasSize(1).first().satisfies(kv ->
                assertThat(kv.getKey().toString(StandardCharsets.UTF_8)).contains("/#"));
        assertThat(revisionsOnServer(lookAlike)).containsExactly(other.fencingToken());
        assertThat(a.release(reader)).isTrue();
        assertThat(a.release(other)).isTrue();
    }

    @Test
    void sharedOperationsCostWhatExclusiveOnesCost() throws Exception {
        EtcdLockBackend a = backend();
        EtcdLockBackend b = backend();
        String key = key();
        a.release(granted(a.tryAcquire(shared(key)))); // session lease granted here
        b.release(granted(b.tryAcquire(exclusive(key))));
        int cycles = 50;
        Map<String, Long> before = EtcdMetrics.messagesReceived(server.endpoint());
        for (int i = 0; i < cycles; i++) {
            Grant reader = granted(a.tryAcquire(shared(key)));
            assertThat(a.release(reader)).isTrue();
        }
        Map<String, Double> perCycle = RequestCountTest.perOperation(before,
                EtcdMetrics.messagesReceived(server.endpoint()), cycles);
        System.out.println("requests per uncontended shared cycle: " + perCycle);
        assertThat(perCycle).containsEntry("Txn", 1.0).containsEntry("DeleteRange", 1.0);
        assertThat(perCycle.keySet()).isSubsetOf("Txn", "DeleteRange", "LeaseKeepAlive");

        // A writer's release hands the lock to the reader queued right behind it with no request beyond the reader's
        // queueing and its watch, as for an exclusive waiter.
        int handoffs = 10;
        before = EtcdMetrics.messagesReceived(server.endpoint());
        for (int i = 0; i < handoffs; i++) {
            Grant writer = granted(b.tryAcquire(exclusive(key)));
            CompletableFuture<Grant> reader = waitFor(a, shared(key));
            await(Duration.ofSeconds(10), () -> keyCount(key) == 2, "the reader queued");
            assertThat(b.release(writer)).isTrue();
            assertThat(a.release(get(reader))).isTrue();
        }
        Map<String, Double> perHandoff = RequestCountTest.perOperation(before,
                EtcdMetrics.messagesReceived(server.endpoint()), handoffs);
        perHandoff.remove("Range"); // this test's own polling of the queue
        System.out.println("requests per writer-to-reader handoff: " + perHandoff);
        assertThat(perHandoff.get("Txn")).isBetween(2.0, 2.5); // see RequestCountTest for the occasional half
        assertThat(perHandoff).containsEntry("DeleteRange", 2.0).containsEntry("Watch", 1.0);
    }
}
