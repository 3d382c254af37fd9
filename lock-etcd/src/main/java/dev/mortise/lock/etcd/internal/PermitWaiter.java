package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.concurrent.CompletableFuture;

/**
 * One permit waiter's stay in a lock's queue under one key ({@link Waiter}'s counterpart for
 * semaphores). Any key ahead of ours leaving can admit us (the counts ahead shrink), so unlike a
 * lock waiter it cannot watch one predecessor: it watches the lock's whole prefix in one stream
 * ({@link PrefixWatch}), from the revision of its last read on, and keeps the keys ahead of it and
 * their counts ({@link PermitAdmission}). A deletion of a key ahead, or a put on our own key (a
 * {@code setPermits} rewriting the stored count), updates that view locally; only when it says
 * we fit does the waiter send a request, one linearizable look, which alone grants. So a release
 * reaches every waiter of the lock over its watch stream, but only those it may admit ask the
 * server anything: no request herd. It also looks when the watch breaks, our lease is found lost,
 * and every third of its lease TTL (keeping an explicit lease alive while waiting), and keeps
 * {@link Waiter}'s keep-alive rule for a grant ({@link Waiter#needsKeepAlive}). Taken one step at
 * a time ({@link QueueStay}); not thread-safe otherwise.
 */
final class PermitWaiter extends QueueStay {

    private final int count;
    private PermitAdmission admission;
    private PrefixWatch watching;
    private long seenUpTo;

    /**
     * Starts a stay with {@code count} permits asked, our key put at the spot's revision with
     * {@code admission} the view of the keys ahead as of that put.
     */
    PermitWaiter(Parts parts, Spot spot, int count, PermitAdmission admission) {
        super(parts, spot);
        this.count = count;
        this.admission = admission;
        this.seenUpTo = spot.revision();
        this.watching = new PrefixWatch(parts.watch(), spot.prefix(), spot.ownKey(), spot.revision() + 1, wake);
        spot.lease().wakeOnLoss(wake);
    }

    /** The stored count as this waiter last knew it. */
    int storedCount() {
        return admission.stored();
    }

    @Override
    WakingWatch watching() {
        return watching;
    }

    /**
     * Applies the watch's news to the view; looks if it says we fit, if the watch broke, or if the
     * sleep was not {@code woken} (a third of the TTL passed: look, and keep an explicit lease alive).
     */
    @Override
    Outcome step(boolean woken) throws InterruptedException {
        boolean look = !woken;
        for (WatchEvent event : watching.drain()) {
            if (event.getKeyValue().getModRevision() <= seenUpTo) {
                continue; // already in the view of the last look
            }
            ByteSequence changed = event.getKeyValue().getKey();
            if (changed.equals(spot.ownKey())) {
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    return Outcome.GONE;
                }
                admission.storedCount(PermitValue.parse(event.getKeyValue().getValue()).limit());
                look |= admission.fits();
            } else if (event.getEventType() == WatchEvent.EventType.DELETE && admission.isAhead(changed)) {
                admission.deleted(changed);
                look |= admission.fits();
            }
        }
        if (spot.lease().isLost()) {
            return Outcome.GONE;
        }
        return look || watching.broken() ? look() : Outcome.WAITING;
    }

    private Outcome look() throws InterruptedException {
        EtcdLease lease = spot.lease();
        long requestedAt = System.nanoTime();
        boolean needsKeepAlive = Waiter.needsKeepAlive(lease, requestedAt);
        CompletableFuture<LeaseKeepAliveResponse> alive = needsKeepAlive ? parts.leases().keepAliveAsync(lease) : null;
        CompletableFuture<TxnResponse> reading = parts.queue().recheckPermits(spot.prefix(), spot.ownKey(),
                spot.revision());
        long callDeadline = parts.rpc().deadline();
        // I/O bounded by the operation timeout: it may run inside a step, on the caller's thread or a shared one.
        TxnResponse response = parts.rpc().awaitInterruptibly(reading, callDeadline, spot.key(),
                "look at the semaphore's queue");
        if ((alive != null && !parts.leases().settle(lease, requestedAt, alive, callDeadline, spot.key()))
                || !response.isSucceeded() || lease.isLost()) {
            return Outcome.GONE;
        }
        admission = PermitAdmission.onLook(response.getGetResponses().get(0).getKvs(), spot.ownKey(),
                spot.prefix().size(), count);
        if (admission.fits()) {
            return granted(requestedAt);
        }
        seenUpTo = response.getHeader().getRevision(); // later events of the watch are news to this view
        if (watching.broken()) {
            watching.close();
            watching = new PrefixWatch(parts.watch(), spot.prefix(), spot.ownKey(), seenUpTo + 1, wake);
        }
        return Outcome.WAITING;
    }
}
