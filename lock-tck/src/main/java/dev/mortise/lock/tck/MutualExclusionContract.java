package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion (DESIGN.md "Semantics" 1): a held key is granted to no other client, a released
 * one is, distinct keys never contend however alike they look, and two clients hammering one
 * counter never lose an update.
 * Run by every {@link LockBackendContractSuite} as its nested {@code MutualExclusion} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class MutualExclusionContract extends NestedContract {

    MutualExclusionContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void heldKeyIsNotGrantedToAnotherClient() {
        String key = key();
        try (LockLease lease = a.acquire(key, Duration.ofSeconds(5))) {
            assertThat(lease.isValid()).isTrue();
            assertThat(b.tryAcquire(key)).isEmpty();
        }
    }

    @Test
    void releasedKeyIsGrantedToAnotherClient() {
        String key = key();
        a.acquire(key, Duration.ofSeconds(5)).close();
        Optional<LockLease> lease = b.tryAcquire(key);
        assertThat(lease).isPresent();
        lease.get().close();
    }

    @Test
    void differentKeysDoNotContend() {
        try (LockLease one = a.acquire(key("one"), Duration.ofSeconds(5));
             LockLease two = b.acquire(key("two"), Duration.ofSeconds(5))) {
            assertThat(one.isValid()).isTrue();
            assertThat(two.isValid()).isTrue();
        }
    }

    @Test
    void counterIsNeverCorruptedUnderTwoClientFuzz() throws Exception {
        String key = key();
        int threadsPerClient = 3;
        int rounds = 25;
        AtomicInteger counter = new AtomicInteger();
        AtomicBoolean inside = new AtomicBoolean();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threadsPerClient * 2);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (LockClient client : List.of(a, b)) {
                for (int t = 0; t < threadsPerClient; t++) {
                    futures.add(pool.submit(() -> {
                        for (int i = 0; i < rounds; i++) {
                            try (LockLease lease = client.acquire(key, Duration.ofSeconds(60))) {
                                if (!inside.compareAndSet(false, true)) {
                                    overlaps.incrementAndGet();
                                }
                                int read = counter.get();
                                Thread.yield();
                                counter.set(read + 1);
                                inside.set(false);
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).as("critical sections that overlapped").isZero();
        assertThat(counter.get()).as("increments (lost updates mean two holders)").isEqualTo(2 * threadsPerClient * rounds);
    }

    @Test
    void keysThatLookAlikeAreDistinctLocks() {
        String base = key();
        List<String> keys = List.of(base, base + "/b", base + "/", base + "/..", base + "/.", base + "%2Fb", base + "{x}",
                base + "{", base + "}", base.toUpperCase(), base + " ", base + "\t", base + "\n", base + "ä",
                base + "a\u0308", base + "日本", base + "\uD83D\uDD12", base + ":", base + "#", base + "*", base + "'",
                base + "\"", base + "\\", base + "%", base + "_", base + "?");
        List<LockLease> held = new ArrayList<>();
        try {
            for (String key : keys) {
                held.add(a.tryAcquire(key).orElseThrow(() -> new AssertionError("could not take free key '" + key + "'")));
            }
            for (String key : keys) {
                assertThat(b.tryAcquire(key)).as("key '%s' must be held", key).isEmpty();
            }
        } finally {
            held.forEach(LockLease::close);
        }
        for (String key : keys) {
            LockLease lease = b.tryAcquire(key).orElseThrow(() -> new AssertionError("key '" + key + "' not released"));
            lease.close();
        }
    }

    @Test
    void aKeyDoesNotWaitForKeysItIsAPrefixOf() {
        String parent = key();
        try (LockLease child = a.acquire(parent + "/child", Duration.ofSeconds(5));
             LockLease sibling = a.acquire(parent + "-sibling", Duration.ofSeconds(5))) {
            Optional<LockLease> lease = b.tryAcquire(parent);
            assertThat(lease).as("lock on the prefix must be free").isPresent();
            lease.get().close();
        }
    }

    @Test
    void keyAtTheLengthLimitWorksEndToEnd() {
        String prefix = key();
        String ascii = prefix + "x".repeat(512 - prefix.length());
        String multiByte = prefix + "日".repeat((512 - prefix.length()) / 3);
        for (String key : List.of(ascii, multiByte)) {
            try (LockLease lease = a.acquire(key, Duration.ofSeconds(5))) {
                assertThat(lease.key()).isEqualTo(key);
                assertThat(b.tryAcquire(key)).isEmpty();
                assertThat(b.tryAcquire(key.substring(0, key.length() - 1))).hasValueSatisfying(LockLease::close);
            }
        }
    }
}
