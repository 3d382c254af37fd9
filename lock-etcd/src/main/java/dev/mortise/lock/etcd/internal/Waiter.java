package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;

import java.util.concurrent.CompletableFuture;

/**
 * One lock waiter's stay in a lock's queue under one key: it watches the key that keeps it
 * waiting (a writer: the key just before its own; a reader: the newest writer key before
 * its own; no herd), and looks again when that key is deleted, the watch breaks, our lease is
 * found lost (the session's keep-alive tells), or a third of its lease TTL passes (which
 * also keeps an explicit lease alive while waiting, and notices our own key deleted behind
 * our back). Each of these signals its {@link Wakeup}, which ends the sleep of a blocking
 * caller's thread or schedules the next step of an asynchronous wait. Taken one step at a time
 * ({@link QueueStay}); not thread-safe otherwise.
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
final class Waiter extends QueueStay {

    private static final long UNKNOWN = -1;

    private final boolean shared;
    private ByteSequence predecessor;
    private long ahead;
    private KeyWatch watching;

    /**
     * Starts a stay behind {@code predecessor}, with {@code ahead} keys that keep us waiting
     * before ours when we queued (so 1: the predecessor alone). A {@code shared} waiter is kept
     * waiting by writer keys only.
     */
    Waiter(Parts parts, Spot spot, boolean shared, ByteSequence predecessor, long ahead) {
        super(parts, spot);
        this.shared = shared;
        this.predecessor = predecessor;
        this.ahead = ahead;
        this.watching = new KeyWatch(parts.watch(), predecessor, spot.ownKey(), spot.revision() + 1, wake);
        spot.lease().wakeOnLoss(wake);
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

    @Override
    WakingWatch watching() {
        return watching;
    }

    /** Looks again, whatever ended the sleep: the watch's news, a break, a lost lease, a third of the TTL. */
    @Override
    Outcome step(boolean woken) throws InterruptedException {
        EtcdLease lease = spot.lease();
        long requestedAt = System.nanoTime();
        if (lease.isLost() || watching.seen() == KeyWatch.Seen.OWN_DELETED) {
            return Outcome.GONE;
        }
        boolean needsKeepAlive = needsKeepAlive(lease, requestedAt);
        if (ahead == 1 && watching.seen() == KeyWatch.Seen.PREDECESSOR_DELETED && !needsKeepAlive) {
            // Our predecessor was the only key before ours that kept us waiting, and it is gone with our own
            // key still there (the watch delivers both in revision order): the lock is ours as of that
            // deletion, on a session lease our keep-alives show alive for at least half its TTL more.
            return granted(requestedAt);
        }
        CompletableFuture<LeaseKeepAliveResponse> alive = needsKeepAlive ? parts.leases().keepAliveAsync(lease) : null;
        CompletableFuture<TxnResponse> look = parts.queue().recheck(spot.prefix(), shared, spot.ownKey(),
                spot.revision());
        long callDeadline = parts.rpc().deadline();
        // I/O bounded by the operation timeout: it may run inside a step, on the caller's thread or a shared one.
        QueueCheck.Check check = QueueCheck.check(parts.rpc().awaitInterruptibly(look, callDeadline, spot.key(),
                "look at the lock's queue"));
        if ((alive != null && !parts.leases().settle(lease, requestedAt, alive, callDeadline, spot.key()))
                || check instanceof QueueCheck.Gone || lease.isLost()) {
            return Outcome.GONE;
        }
        if (check instanceof QueueCheck.Owner) {
            return granted(requestedAt);
        }
        QueueCheck.Behind behind = (QueueCheck.Behind) check;
        // A look's read is bounded by our create revision, and etcd counts the range before that bound:
        // how many keys are ahead of us is not known any more, so from now on only a look grants.
        ahead = UNKNOWN;
        if (!behind.predecessor().equals(predecessor) || watching.broken()
                || watching.seen() != KeyWatch.Seen.NOTHING) {
            watching.close();
            predecessor = behind.predecessor();
            watching = new KeyWatch(parts.watch(), predecessor, spot.ownKey(), behind.revision() + 1, wake);
        }
        return Outcome.WAITING;
    }
}
