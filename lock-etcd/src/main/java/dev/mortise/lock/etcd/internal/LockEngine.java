package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.WaitSteps;
import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The etcd lock protocol behind {@link dev.mortise.lock.etcd.EtcdLockBackend}, put together
 * from its parts: queue under the lock's prefix, hold when first (a reader: when no writer is
 * before it), wait on the predecessor, clean up on every way out ({@link Acquisition},
 * {@link QueueEntry}); several locks at once ({@link BatchAcquire}); renewals, lingering and
 * moves between leases ({@link HoldRenewals}); leases ({@link LeaseKeeper}). Shared and
 * exclusive requests differ only in their key's name and in which keys before theirs they wait
 * for ({@link LockQueue}). Thread-safe; it keeps no per-lock state beyond the holds on each
 * lease (to report their loss).
 */
public final class LockEngine implements AutoCloseable {

    private final KeySpace keys;
    private final Rpc rpc;
    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final QueueExit exit;
    private final Acquisition acquisition;
    private final HoldRenewals renewals;
    private final LeaseMove moves;
    private final KeyInspection inspection;
    private final BatchAcquire batch;
    private final PermitCount permitCount;
    private final EtcdWaitRecords waitRecords;

    public LockEngine(Client client, KeySpace keys, Duration operationTimeout) {
        this.keys = keys;
        this.rpc = new Rpc(operationTimeout);
        this.leases = new LeaseKeeper(client.getLeaseClient(), client.getKVClient(), keys, rpc);
        this.queue = new LockQueue(client.getKVClient(), rpc);
        OrphanCleaner orphans = new OrphanCleaner(client.getKVClient(), rpc, leases.scheduler());
        this.exit = new QueueExit(leases, queue, orphans);
        QueueEntry entry = new QueueEntry(leases, queue, orphans, exit);
        this.acquisition = new Acquisition(keys, leases, queue, entry, exit, client.getWatchClient(), rpc);
        this.moves = new LeaseMove(client.getKVClient(), leases, rpc);
        this.renewals = new HoldRenewals(new Renewal(leases, queue, rpc), moves);
        this.inspection = new KeyInspection(client.getKVClient(), client.getLeaseClient(), keys, rpc);
        this.batch = new BatchAcquire(keys, leases, new BatchQueue(client.getKVClient(), rpc), orphans);
        this.permitCount = new PermitCount(client.getKVClient(), rpc);
        this.waitRecords = new EtcdWaitRecords(client.getKVClient(), keys, rpc,
                new WaitLeases(client.getLeaseClient(), leases, rpc));
    }

    public void addGrantListener(GrantListener listener) {
        leases.addListener(listener);
    }

    public Attempt tryAcquire(LockRequest request) {
        return acquisition.tryAcquire(request).map(Attempt::granted).orElseGet(() -> Attempt.busy(null));
    }

    /** Several keys in one transaction, all or nothing: see {@link BatchAcquire}. */
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        if (requests.stream().anyMatch(LockRequest::takesPermits)) {
            return null; // a semaphore is never part of a batch: no native batch, the core goes one by one
        }
        return batch.tryAcquireAll(requests);
    }

    /**
     * The wait for {@code request} up to {@code wait} as steps ({@link QueueWait}), for a driver to
     * run: {@link dev.mortise.lock.spi.WaitDriver#await} on the caller's thread, or
     * {@link dev.mortise.lock.spi.WaitDriver#start} without a thread while it sleeps. The deadline
     * counts from this call.
     */
    public WaitSteps waitFor(LockRequest request, Duration wait) {
        return acquisition.waitFor(request, wait);
    }

    /** Leaves the hold to expire {@code linger} from now ({@link LeaseMove#linger}); false if it is gone. */
    public boolean linger(Grant grant, Duration linger) {
        return moves.linger(grant, linger);
    }

    /** Renews one hold with {@code lease} ({@link HoldRenewals#renew}): the TTL etcd now keeps it for; empty if it is gone. */
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return renewals.renew(grant, lease);
    }

    /** Renews every hold with {@code lease} ({@link HoldRenewals#renewAll}): those gone, and each other's TTL. */
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return renewals.renewAll(grants, lease);
    }

    public boolean release(Grant grant) {
        return exit.release(grant);
    }

    /** What etcd records about {@code key}: see {@link KeyInspection}. */
    public KeyState inspect(String key) {
        return inspection.inspect(key);
    }

    public void ping() {
        rpc.await(queue.ping(keys.pingKey()), "(ping)", "answer a ping");
    }

    /**
     * Sets the stored permit count of the semaphore key {@code key}: every permit key of the
     * lock is rewritten with {@code limit} (see {@link PermitCount}); waiters see the put on
     * their own key and look again if they now fit.
     */
    public void setPermits(String key, int limit) {
        permitCount.set(keys.prefix(key), limit, key);
    }

    /** The wait records of deadlock detection: see {@link EtcdWaitRecords}. */
    public EtcdWaitRecords waitRecords() {
        return waitRecords;
    }

    @Override
    public void close() {
        try {
            waitRecords.close();
        } finally {
            leases.close();
        }
    }
}
