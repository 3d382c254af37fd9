package dev.mortise.lock.test;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example of docs/testing.md, written as a user of Mortise would: a storage that refuses
 * writes with an older fencing token, a service that writes under a lock and stops when told
 * its lease is lost, and tests that end the lease on demand instead of sleeping.
 */
@MortiseLockTest
class FencedStorageExampleTest {

    /** The user's storage: remembers the highest token per key and refuses older ones. */
    static final class FencedStorage {
        private final Map<String, Long> highest = new ConcurrentHashMap<>();
        private final Map<String, String> values = new ConcurrentHashMap<>();

        /** @return false (and nothing written) if a newer token has written the key */
        synchronized boolean write(String key, String value, long token) {
            long seen = highest.getOrDefault(key, Long.MIN_VALUE);
            if (token < seen) {
                return false;
            }
            highest.put(key, token);
            values.put(key, value);
            return true;
        }

        String read(String key) {
            return values.get(key);
        }
    }

    /** The user's service: takes the lock, watches for its loss, writes with the token. */
    static final class InvoiceWriter {
        private final LockClient locks;
        private final FencedStorage storage;
        final List<LockLostEvent> losses = new CopyOnWriteArrayList<>();

        InvoiceWriter(LockClient locks, FencedStorage storage) {
            this.locks = locks;
            this.storage = storage;
        }

        LockLease begin(String invoice, Duration lease) {
            LockSpec spec = LockSpec.of("invoice:" + invoice).waitFor(Duration.ofSeconds(1));
            LockLease held = locks.acquire(lease == null ? spec : spec.lease(lease));
            held.onLost(losses::add);
            return held;
        }

        boolean write(LockLease held, String invoice, String value) {
            return storage.write("invoice:" + invoice, value, held.fencingToken());
        }
    }

    private final FencedStorage storage = new FencedStorage();

    @Test
    void aWriterWhoseLeaseRanOutIsToldAndItsLateWriteIsRefused(TestLockClient locks) {
        InvoiceWriter slow = new InvoiceWriter(locks, storage);
        LockLease lease = slow.begin("17", Duration.ofSeconds(10));
        assertThat(slow.write(lease, "17", "draft")).isTrue();

        locks.advance(Duration.ofSeconds(11)); // the writer stalled past its explicit lease

        assertThat(lease.isValid()).isFalse();
        assertThat(slow.losses).extracting(LockLostEvent::reason).containsExactly(LostReason.EXPIRED);

        try (TestLockClient otherProcess = locks.anotherClient()) {
            InvoiceWriter fast = new InvoiceWriter(otherProcess, storage);
            try (LockLease newer = fast.begin("17", null)) {
                assertThat(newer.fencingToken()).isGreaterThan(lease.fencingToken());
                assertThat(fast.write(newer, "17", "final")).isTrue();
            }
        }
        assertThat(slow.write(lease, "17", "stale")).isFalse();
        assertThat(storage.read("invoice:17")).isEqualTo("final");
    }

    @Test
    void aWriterWhoseLockWasTakenIsToldAndItsWriteIsRefused(TestLockClient locks) {
        InvoiceWriter writer = new InvoiceWriter(locks, storage);
        LockLease lease = writer.begin("42", null); // renewed in the background

        StolenLock thief = locks.steal("invoice:42");
        assertThat(storage.write("invoice:42", "thief's", thief.fencingToken())).isTrue();

        assertThat(lease.isValid()).isFalse();
        assertThat(writer.losses).extracting(LockLostEvent::reason).containsExactly(LostReason.RENEWAL_REJECTED);
        assertThat(writer.write(lease, "42", "mine")).isFalse();
        assertThat(storage.read("invoice:42")).isEqualTo("thief's");
    }

    @Test
    void aRenewedLeaseOutlivesItsLeaseTimeWhileTheServerAnswers(TestLockClient locks) {
        InvoiceWriter writer = new InvoiceWriter(locks, storage);
        try (LockLease lease = writer.begin("7", null)) {
            locks.advance(Duration.ofMinutes(10)); // twenty leases long: renewed all along

            assertThat(lease.isValid()).isTrue();
            assertThat(writer.losses).isEmpty();
            assertThat(writer.write(lease, "7", "late but still ours")).isTrue();
        }
    }
}
