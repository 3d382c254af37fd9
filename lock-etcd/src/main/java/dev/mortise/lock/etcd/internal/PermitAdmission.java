package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a permit request fits, by the queue's rule for permit keys: a permit key holds when
 * every key created before it is a permit key and their counts plus its own are at most the
 * stored count (the limit in the value of the lock's oldest permit key). Since every key before
 * ours counts, holding or waiting, a waiter for many is never overtaken by a later one for few
 * (first in, first out by create revision). Not thread-safe: one waiter's view of the keys ahead
 * of it, updated from its watch.
 */
final class PermitAdmission {

    /** What a key that is not a permit key (a writer, a plain reader) weighs: it always keeps us out. */
    private static final int BLOCKING = Integer.MAX_VALUE / 4;

    private final Map<ByteSequence, Integer> ahead = new LinkedHashMap<>();
    private final int count;
    private int stored;
    private long sum;
    private final boolean mismatch;

    private PermitAdmission(List<KeyValue> before, KeyValue own, int prefixLength, int count, int limit) {
        this.count = count;
        Integer oldest = null;
        for (KeyValue kv : before) {
            int weight = BLOCKING;
            if (KeySpace.isPermitKey(kv.getKey(), prefixLength)) {
                PermitValue value = PermitValue.parse(kv.getValue());
                weight = value.count();
                if (oldest == null) {
                    oldest = value.limit();
                }
            }
            ahead.put(kv.getKey(), weight);
            sum += weight;
        }
        if (oldest == null && own != null) {
            oldest = PermitValue.parse(own.getValue()).limit();
        }
        this.stored = oldest == null ? limit : oldest;
        this.mismatch = own == null && oldest != null && oldest != limit;
    }

    /**
     * A request that just queued: {@code before} are the keys under the lock's prefix created
     * before ours (oldest first). If a permit key is among them, its limit is the stored count
     * and a request with another limit is refused ({@link #mismatch()}).
     */
    static PermitAdmission onArrival(List<KeyValue> before, int prefixLength, int count, int limit) {
        return new PermitAdmission(before, null, prefixLength, count, limit);
    }

    /**
     * A waiter's look: {@code queue} are the keys created up to ours, ours last (oldest first). A
     * waiter follows the stored count, whatever it asked with; it is never refused.
     */
    static PermitAdmission onLook(List<KeyValue> queue, ByteSequence ownKey, int prefixLength, int count) {
        KeyValue own = null;
        List<KeyValue> before = new java.util.ArrayList<>(queue.size());
        for (KeyValue kv : queue) {
            if (kv.getKey().equals(ownKey)) {
                own = kv;
            } else {
                before.add(kv);
            }
        }
        int limit = own == null ? count : PermitValue.parse(own.getValue()).limit();
        return new PermitAdmission(before, own == null ? null : own, prefixLength, count, limit);
    }

    /** A request with a count other than the stored one found permit keys queued: refuse it. */
    boolean mismatch() {
        return mismatch;
    }

    /** The stored count, as this view knows it. */
    int stored() {
        return stored;
    }

    /** Whether the keys ahead of ours, and our count, fit the stored count now. */
    boolean fits() {
        return sum + count <= stored;
    }

    /** Whether {@code key} is one of the keys ahead of ours. */
    boolean isAhead(ByteSequence key) {
        return ahead.containsKey(key);
    }

    /** A key ahead of ours was deleted (released, expired, timed out). */
    void deleted(ByteSequence key) {
        Integer weight = ahead.remove(key);
        if (weight != null) {
            sum -= weight;
        }
    }

    /** {@code setPermits} rewrote our key with a new stored count. */
    void storedCount(int limit) {
        this.stored = limit;
    }
}
