package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.KeyValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Which keys of a lock's queue hold it, read off the queue as {@link KeyInspection} sees it
 * (every key under the prefix, oldest first), by the rules the queue grants by: writers,
 * readers ({@link LockQueue}) and permits ({@link PermitAdmission}). Stateless.
 */
final class QueueHolders {

    private QueueHolders() {
    }

    /**
     * The keys that hold, by {@link LockQueue}'s rule, among {@code queued} (oldest first): the
     * oldest key alone if it is a writer's, else the readers' keys before the first writer's.
     */
    static List<KeyValue> holders(List<KeyValue> queued, int readerMark) {
        if (queued.isEmpty()) {
            return List.of();
        }
        if (KeySpace.isPermitKey(queued.get(0).getKey(), readerMark)) {
            return permitHolders(queued, readerMark);
        }
        if (!isReader(queued.get(0), readerMark)) {
            return List.of(queued.get(0));
        }
        List<KeyValue> readers = new ArrayList<>();
        for (KeyValue kv : queued) {
            if (!isReader(kv, readerMark)) {
                break;
            }
            readers.add(kv);
        }
        return readers;
    }

    /**
     * The permit keys that hold ({@link PermitAdmission}'s rule): from the oldest, the permit keys
     * whose counts, added up in queue order, stay within the stored count (the oldest one's limit).
     */
    private static List<KeyValue> permitHolders(List<KeyValue> queued, int prefixLength) {
        int limit = PermitValue.parse(queued.get(0).getValue()).limit();
        long sum = 0;
        List<KeyValue> holders = new ArrayList<>();
        for (KeyValue kv : queued) {
            if (!KeySpace.isPermitKey(kv.getKey(), prefixLength)) {
                break;
            }
            sum += PermitValue.parse(kv.getValue()).count();
            if (sum > limit) {
                break;
            }
            holders.add(kv);
        }
        return holders;
    }

    /** The owner a holding key records: its value, or for a permit key the owner in it. */
    static String ownerOf(KeyValue kv, int prefixLength) {
        return KeySpace.isPermitKey(kv.getKey(), prefixLength) ? PermitValue.parse(kv.getValue()).owner()
                : kv.getValue().toString(StandardCharsets.UTF_8);
    }

    /** A reader key has {@code #} right after the lock's prefix ({@link KeySpace#readerKey}). */
    private static boolean isReader(KeyValue kv, int readerMark) {
        byte[] name = kv.getKey().getBytes();
        return name.length > readerMark && name[readerMark] == '#';
    }

    /** Whether a holding key holds a share (a reader's or permit key) rather than the lock alone. */
    static boolean shared(KeyValue holder, int readerMark) {
        return isReader(holder, readerMark) || KeySpace.isPermitKey(holder.getKey(), readerMark);
    }
}
