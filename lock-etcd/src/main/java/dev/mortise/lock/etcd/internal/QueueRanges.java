package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;

import java.util.List;

/**
 * The reads a lock's queue is judged by: which keys under its prefix keep a request of each
 * mode waiting ({@link LockQueue}), and the whole queue in creation order (permits). Stateless.
 */
final class QueueRanges {

    private QueueRanges() {
    }

    /**
     * The newest key that keeps a request of this mode waiting, created up to
     * {@code maxCreateRevision} (0: any): for a writer any key under the prefix (the read
     * the exclusive path has always sent), for a reader a key in the writers' range.
     */
    static Op blockers(ByteSequence prefix, boolean shared, long maxCreateRevision) {
        if (!shared) {
            return Op.get(prefix, newest(GetOption.builder().isPrefix(true), maxCreateRevision));
        }
        return Op.get(KeySpace.writersFrom(prefix),
                newest(GetOption.builder().withRange(KeySpace.prefixEnd(prefix)), maxCreateRevision));
    }

    /** Keys of {@code option}'s range created up to {@code maxCreateRevision} (0: any), newest first, at most one. */
    private static GetOption newest(GetOption.Builder option, long maxCreateRevision) {
        option.withKeysOnly(true).withLimit(1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND);
        if (maxCreateRevision > 0) {
            option.withMaxCreateRevision(maxCreateRevision);
        }
        return option.build();
    }

    /** Every key under {@code prefix} created up to {@code maxCreateRevision} (0: any), with values, oldest first. */
    static GetOption queueOf(ByteSequence prefix, long maxCreateRevision) {
        GetOption.Builder option = GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND);
        if (maxCreateRevision > 0) {
            option.withMaxCreateRevision(maxCreateRevision);
        }
        return option.build();
    }

    /** The first key a read answered, or null. */
    static ByteSequence firstKey(GetResponse response) {
        List<KeyValue> kvs = response.getKvs();
        return kvs.isEmpty() ? null : kvs.get(0).getKey();
    }
}
