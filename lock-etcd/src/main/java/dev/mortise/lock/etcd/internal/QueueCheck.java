package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;

/**
 * What a lock waiter learns when it looks again ({@link LockQueue#recheck}): its key is gone,
 * it holds the lock, or a key before it still keeps it waiting. Stateless.
 */
final class QueueCheck {

    private QueueCheck() {
    }

    /** What a waiter learns when it looks again. */
    sealed interface Check permits Gone, Owner, Behind {
    }

    /** Our key is gone (its lease expired or it was deleted): we are not in the queue any more. */
    record Gone() implements Check {
    }

    /** No key before ours: we hold the lock. */
    record Owner() implements Check {
    }

    /** {@code predecessor} is still before us, as of {@code revision}. */
    record Behind(ByteSequence predecessor, long revision) implements Check {
    }

    /** The answer to {@link LockQueue#recheck}. */
    static Check check(TxnResponse response) {
        if (!response.isSucceeded()) {
            return new Gone();
        }
        ByteSequence predecessor = QueueRanges.firstKey(response.getGetResponses().get(0));
        return predecessor == null ? new Owner() : new Behind(predecessor, response.getHeader().getRevision());
    }
}
