package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One permit waiter's stay in a lock's queue under one key ({@link Waiter}'s counterpart for
 * semaphores). Any key ahead of ours leaving can admit us (the counts ahead shrink), so unlike a
 * lock waiter it cannot watch one predecessor: it watches the lock's whole prefix in one stream,
 * from the revision of its last read on, and keeps the keys ahead of it and their counts
 * ({@link PermitAdmission}). A deletion of a key ahead, or a put on our own key (a
 * {@code setPermits} rewriting the stored count), updates that view locally; only when it says
 * we fit does the waiter send a request, one linearizable look, which alone grants. So a release
 * reaches every waiter of the lock over its watch stream, but only those it may admit ask the
 * server anything: no request herd. It also looks when the watch breaks, our lease is found lost,
 * and every third of its lease TTL (keeping an explicit lease alive while waiting), and keeps
 * {@link Waiter}'s keep-alive rule for a grant ({@link Waiter#needsKeepAlive}). Not thread-safe:
 * one acquiring thread uses one waiter.
 */
final class PermitWaiter {

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final Watch watch;
    private final Rpc rpc;
    private long grantedRequestedAt;
    private int storedCount;

    PermitWaiter(LeaseKeeper leases, LockQueue queue, Watch watch, Rpc rpc) {
        this.leases = leases;
        this.queue = queue;
        this.watch = watch;
        this.rpc = rpc;
    }

    /** The stored count as this waiter last knew it (after {@link #await} returned). */
    int storedCount() {
        return storedCount;
    }

    /** {@link System#nanoTime()} before the look that granted, after {@link Waiter.Outcome#GRANTED}. */
    long grantedRequestedAt() {
        return grantedRequestedAt;
    }

    /**
     * Waits in the queue with {@code count} permits asked, our key put at {@code revision} with
     * {@code admission} the view of the keys ahead as of that put.
     */
    Waiter.Outcome await(ByteSequence prefix, ByteSequence ownKey, long revision, int count,
                         PermitAdmission admission, EtcdLease lease, long deadline, String key)
            throws InterruptedException {
        Semaphore wake = new Semaphore(0);
        long recheckNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(100, lease.ttlSeconds() * 1000 / 3));
        lease.wakeOnLoss(wake);
        PrefixWatch watching = new PrefixWatch(watch, prefix, ownKey, revision + 1, wake);
        boolean look = false;
        long seenUpTo = revision;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Waiter.Outcome.TIMED_OUT;
                }
                if (!look) {
                    if (wake.tryAcquire(Math.min(left, recheckNanos), TimeUnit.NANOSECONDS)) {
                        wake.drainPermits();
                    } else if (deadline - System.nanoTime() <= 0) {
                        return Waiter.Outcome.TIMED_OUT;
                    } else {
                        look = true; // a third of the TTL passed: look (and keep an explicit lease alive)
                    }
                }
                for (WatchEvent event : watching.drain()) {
                    if (event.getKeyValue().getModRevision() <= seenUpTo) {
                        continue; // already in the view of the last look
                    }
                    ByteSequence changed = event.getKeyValue().getKey();
                    if (changed.equals(ownKey)) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                            return Waiter.Outcome.GONE;
                        }
                        admission.storedCount(PermitValue.parse(event.getKeyValue().getValue()).limit());
                        look |= admission.fits();
                    } else if (event.getEventType() == WatchEvent.EventType.DELETE && admission.isAhead(changed)) {
                        admission.deleted(changed);
                        look |= admission.fits();
                    }
                }
                if (lease.isLost()) {
                    return Waiter.Outcome.GONE;
                }
                if (watching.broken()) {
                    look = true;
                }
                if (!look) {
                    continue;
                }
                look = false;
                long requestedAt = System.nanoTime();
                boolean needsKeepAlive = Waiter.needsKeepAlive(lease, requestedAt);
                CompletableFuture<LeaseKeepAliveResponse> alive = needsKeepAlive ? leases.keepAliveAsync(lease) : null;
                CompletableFuture<TxnResponse> reading = queue.recheckPermits(prefix, ownKey, revision);
                long callDeadline = rpc.deadline();
                TxnResponse response = rpc.awaitInterruptibly(reading, callDeadline, key, "look at the semaphore's queue");
                if ((alive != null && !leases.settle(lease, requestedAt, alive, callDeadline, key))
                        || !response.isSucceeded() || lease.isLost()) {
                    return Waiter.Outcome.GONE;
                }
                admission = PermitAdmission.onLook(response.getGetResponses().get(0).getKvs(), ownKey, prefix.size(),
                        count);
                if (admission.fits()) {
                    grantedRequestedAt = requestedAt;
                    return Waiter.Outcome.GRANTED;
                }
                seenUpTo = response.getHeader().getRevision(); // later events of the watch are news to this view
                if (watching.broken()) {
                    watching.close();
                    watching = new PrefixWatch(watch, prefix, ownKey, seenUpTo + 1, wake);
                }
            }
        } finally {
            storedCount = admission.stored();
            lease.stopWaking(wake);
            watching.close();
        }
    }

    /**
     * A watch of every key under the lock's prefix, puts and deletes, from a revision on: events
     * are queued for the waiter's thread and wake it. As {@link KeyWatch}, it asks etcd to
     * confirm its creation and wakes the waiter if the revision had moved past its start by then
     * (etcd replays missed events of a past-revision watch only at its next resync). Thread-safe.
     */
    private static final class PrefixWatch implements AutoCloseable {

        private final Watch.Watcher watcher;
        private final ConcurrentLinkedQueue<WatchEvent> events = new ConcurrentLinkedQueue<>();
        private volatile boolean broken;

        PrefixWatch(Watch watch, ByteSequence prefix, ByteSequence own, long fromRevision, Semaphore wake) {
            WatchOption option = WatchOption.builder().withRevision(fromRevision).isPrefix(true)
                    .withRequireLeader(true).withCreateNotify(true).build();
            this.watcher = watch.watch(prefix, option, Watch.listener(response -> {
                if (response.isCreatedNotify()) {
                    if (response.getHeader().getRevision() >= fromRevision) {
                        wake.release();
                    }
                    return;
                }
                boolean relevant = false;
                for (WatchEvent event : response.getEvents()) {
                    if (event.getEventType() == WatchEvent.EventType.DELETE || event.getKeyValue().getKey().equals(own)) {
                        events.add(event);
                        relevant = true;
                    }
                }
                if (relevant) {
                    wake.release();
                }
            }, error -> {
                broken = true;
                wake.release();
            }, () -> {
                broken = true;
                wake.release();
            }));
        }

        List<WatchEvent> drain() {
            List<WatchEvent> drained = new ArrayList<>();
            for (WatchEvent event; (event = events.poll()) != null; ) {
                drained.add(event);
            }
            return drained;
        }

        boolean broken() {
            return broken;
        }

        @Override
        public void close() {
            try {
                watcher.close();
            } catch (RuntimeException ignored) {
                // closing a watch on a closed client: nothing left to stop
            }
        }
    }
}
