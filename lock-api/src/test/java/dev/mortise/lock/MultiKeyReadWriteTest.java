package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-key locks with mixed read and write parts through the {@link LockClient} API, on the
 * in-process backend: callers whose overlapping parts are all read hold together; a write part
 * on a key another caller reads (or a read part on a key another caller writes) excludes.
 * Each caller is a client of its own on one server, so the exclusion is the server's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiKeyReadWriteTest {

    private static final Duration LONG = Duration.ofSeconds(20);

    private final LocalLockServer server = new LocalLockServer("multi-rw");
    private final List<LockClient> clients = new ArrayList<>();

    private LockClient client() {
        LockClient client = LockClient.builder(new LocalLockBackend(server)).defaultLease(Duration.ofSeconds(2)).build();
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    /** Runs {@code body} under {@code spec} on a thread of its own; the future completes when the lock is released. */
    private static CompletableFuture<Void> holding(LockClient client, MultiLockSpec spec, Runnable body) {
        return CompletableFuture.runAsync(() -> {
            try (MultiLease ignored = client.acquireAll(spec)) {
                body.run();
            }
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(LONG.toSeconds(), TimeUnit.SECONDS)).as("latch").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void overlappingReadPartsRunTogetherWhileEachWritesItsOwnKey() throws Exception {
        LockClient a = client();
        LockClient b = client();
        CountDownLatch bothInside = new CountDownLatch(2);
        CountDownLatch leave = new CountDownLatch(1);
        Runnable body = () -> {
            bothInside.countDown();
            await(bothInside); // each waits for the other inside: only passes if both hold at once
            await(leave);
        };
        CompletableFuture<Void> first = holding(a,
                MultiLockSpec.of(List.of()).shared("catalog").shared("prices").exclusive("order-1").waitFor(LONG), body);
        CompletableFuture<Void> second = holding(b,
                MultiLockSpec.of(List.of()).shared("prices").shared("catalog").exclusive("order-2").waitFor(LONG), body);
        assertThat(bothInside.await(LONG.toSeconds(), TimeUnit.SECONDS)).as("both callers inside at once").isTrue();
        assertThat(server.isHeld("catalog")).isTrue();
        leave.countDown();
        first.get(LONG.toSeconds(), TimeUnit.SECONDS);
        second.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertThat(server.isHeld("catalog")).isFalse();
        assertThat(server.isHeld("order-1")).isFalse();
    }

    @Test
    void aWritePartExcludesReadersOfThatKeyAndWaitsForThem() throws Exception {
        LockClient reader = client();
        LockClient writer = client();
        MultiLease read = reader.acquireAll(MultiLockSpec.of(List.of()).shared("catalog").exclusive("order-1")
                .waitFor(LONG));
        MultiLockSpec write = MultiLockSpec.of(List.of()).shared("prices").exclusive("catalog");
        // Busy while a reader holds the key: nothing of the request is left held (all or nothing).
        assertThat(writer.tryAcquireAll(write)).isEmpty();
        assertThat(server.isHeld("prices")).isFalse();

        CountDownLatch writing = new CountDownLatch(1);
        CompletableFuture<Void> waiting = holding(writer, write.waitFor(LONG), writing::countDown);
        assertThat(writing.await(200, TimeUnit.MILLISECONDS)).as("writer ran while the reader held").isFalse();
        read.close();
        await(writing);
        waiting.get(LONG.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aReadPartExcludesWhileAnotherCallerWritesThatKey() throws Exception {
        LockClient writer = client();
        LockClient reader = client();
        try (MultiLease write = writer.acquireAll(MultiLockSpec.of(List.of()).exclusive("catalog").shared("prices")
                .waitFor(LONG))) {
            assertThat(write.mode("catalog")).isEqualTo(LockMode.EXCLUSIVE);
            Optional<MultiLease> read = reader.tryAcquireAll(MultiLockSpec.of(List.of()).shared("catalog")
                    .shared("prices"));
            assertThat(read).as("a read part on a key written by another caller").isEmpty();
            // The read part on "prices" alone shares with the writer's read part.
            try (MultiLease prices = reader.tryAcquireAll(MultiLockSpec.of(List.of()).shared("prices")).orElseThrow()) {
                assertThat(prices.mode("prices")).isEqualTo(LockMode.SHARED);
            }
        }
        try (MultiLease read = reader.tryAcquireAll(MultiLockSpec.of(List.of()).shared("catalog").shared("prices"))
                .orElseThrow()) {
            assertThat(read.parts()).extracting(LockLease::mode).containsOnly(LockMode.SHARED);
        }
    }
}
