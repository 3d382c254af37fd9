package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One waiter's stay in a lock's queue under one key: it watches the key that keeps it
 * waiting (a writer: the key just before its own; a reader: the newest writer key before
 * its own; no herd), and looks again when that key is deleted, the watch breaks, our lease is
 * found lost (the session's keep-alive tells), or a third of its lease TTL passes (which
 * also keeps an explicit lease alive while waiting, and notices our own key deleted behind
 * our back). Not thread-safe: one acquiring thread uses one waiter.
 *
 * <p>It reports a grant only when, in one linearizable look, our key still exists with its
 * revision and nothing is before it, and the lease is known alive: the Jepsen etcd 3.4.3
 * finding (etcd#11456) was a lock granted on a lease that had expired while its owner
 * waited. Our key is attached to our lease, so its existence proves etcd had not expired
 * or revoked the lease when it answered; and a keep-alive is sent with the look unless
 * our own confirmations already show at least half the TTL ahead (see
 * {@link #needsKeepAlive}), so a lease that may have run out while we waited (a pause
 * longer than the TTL) is always asked about before a grant.
 */
final class Waiter {

    /** How a stay in the queue ended. */
    enum Outcome { GRANTED, GONE, TIMED_OUT }

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final Watch watch;
    private final Rpc rpc;
    private long grantedRequestedAt;

    Waiter(LeaseKeeper leases, LockQueue queue, Watch watch, Rpc rpc) {
        this.leases = leases;
        this.queue = queue;
        this.watch = watch;
        this.rpc = rpc;
    }

    /** {@link System#nanoTime()} before the look that granted, after {@link Outcome#GRANTED}. */
    long grantedRequestedAt() {
        return grantedRequestedAt;
    }

    /**
     * Whether a look must carry a keep-alive. Always on a lease of its own: that keep-alive
     * is what makes an explicit lease run from the grant. On a session lease the look
     * itself is the guard (our key, attached to the lease, still exists with its revision:
     * the lease was not revoked nor expired when etcd answered), and the hold's validity
     * counts from the session's last confirmed keep-alive, as for an immediate grant; a
     * keep-alive is added only when the session's keep-alives are behind (less than half
     * the TTL confirmed ahead), so that a grant never starts with little validity left.
     */
    static boolean needsKeepAlive(EtcdLease lease, long now) {
        return !lease.shared() || lease.aliveUntilNanos() - now < lease.ttlSeconds() * 500_000_000L;
    }

    private static final long UNKNOWN = -1;

    /**
     * Waits in the queue behind {@code predecessor}, with {@code ahead} keys that keep us
     * waiting before ours when we queued (so 1: the predecessor alone). A {@code shared}
     * waiter is kept waiting by writer keys only.
     */
    Outcome await(ByteSequence prefix, boolean shared, ByteSequence ownKey, long revision, ByteSequence predecessor,
                  long ahead, EtcdLease lease, long deadline, String key) throws InterruptedException {
        Semaphore wake = new Semaphore(0);
        long recheckNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(100, lease.ttlSeconds() * 1000 / 3));
        lease.wakeOnLoss(wake);
        KeyWatch watching = new KeyWatch(watch, predecessor, ownKey, revision + 1, wake);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Outcome.TIMED_OUT;
                }
                if (wake.tryAcquire(Math.min(left, recheckNanos), TimeUnit.NANOSECONDS)) {
                    wake.drainPermits();
                } else if (deadline - System.nanoTime() <= 0) {
                    return Outcome.TIMED_OUT;
                }
                long requestedAt = System.nanoTime();
                if (lease.isLost() || watching.seen() == KeyWatch.Seen.OWN_DELETED) {
                    return Outcome.GONE;
                }
                boolean needsKeepAlive = needsKeepAlive(lease, requestedAt);
                if (ahead == 1 && watching.seen() == KeyWatch.Seen.PREDECESSOR_DELETED && !needsKeepAlive) {
                    // Our predecessor was the only key before ours that kept us waiting, and it is gone with our own
                    // key still there (the watch delivers both in revision order): the lock is ours as of that
                    // deletion, on a session lease our keep-alives show alive for at least half its TTL more.
                    grantedRequestedAt = requestedAt;
                    return Outcome.GRANTED;
                }
                CompletableFuture<LeaseKeepAliveResponse> alive = needsKeepAlive ? leases.keepAliveAsync(lease) : null;
                CompletableFuture<TxnResponse> look = queue.recheck(prefix, shared, ownKey, revision);
                long callDeadline = rpc.deadline();
                QueueCheck.Check check = QueueCheck.check(rpc.awaitInterruptibly(look, callDeadline, key,
                        "look at the lock's queue"));
                if ((alive != null && !leases.settle(lease, requestedAt, alive, callDeadline, key))
                        || check instanceof QueueCheck.Gone || lease.isLost()) {
                    return Outcome.GONE;
                }
                if (check instanceof QueueCheck.Owner) {
                    grantedRequestedAt = requestedAt;
                    return Outcome.GRANTED;
                }
                QueueCheck.Behind behind = (QueueCheck.Behind) check;
                // A look's read is bounded by our create revision, and etcd counts the range before that bound:
                // how many keys are ahead of us is not known any more, so from now on only a look grants.
                ahead = UNKNOWN;
                if (!behind.predecessor().equals(predecessor) || watching.broken()
                        || watching.seen() != KeyWatch.Seen.NOTHING) {
                    watching.close();
                    predecessor = behind.predecessor();
                    watching = new KeyWatch(watch, predecessor, ownKey, behind.revision() + 1, wake);
                }
            }
        } finally {
            lease.stopWaking(wake);
            watching.close();
        }
    }
}
