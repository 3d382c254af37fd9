package dev.mortise.lock.etcd;

import dev.mortise.lock.etcd.internal.LockEngine;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitRecords;
import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The etcd backend ({@code "etcd"}), on jetcd: FIFO locks on leases with fencing tokens
 * from etcd's revisions.
 *
 * <pre>{@code
 * LockClient locks = LockClient.builder(EtcdLockBackend.builder()
 *         .endpoints("http://etcd-0:2379", "http://etcd-1:2379", "http://etcd-2:2379")
 *         .build()).build();
 * }</pre>
 *
 * <p>Each lock is a prefix in etcd; every holder and waiter puts a key of its own under it,
 * attached to a lease. The key with the lowest create revision holds the lock, and that
 * revision is the fencing token: strictly increasing across the cluster for as long as it
 * keeps its data. A waiter watches only the key just before its own. Holds the core renews
 * share one session lease per TTL, kept alive in the background; holds with an explicit
 * lease get a lease of their own that simply expires. Lease TTLs are whole seconds,
 * rounded up. Shared (read) holds queue in the same prefix under reader keys and hold while
 * no writer is queued before them ({@link #supportsSharedMode()}). Semaphores are native:
 * each acquisition of n permits is one permit key in the same queue, carrying its count and the
 * stored permit count ({@link #supportsPermits()}). See {@code docs/etcd.md}.
 *
 * <p>Thread-safe. Every call answers or fails with
 * {@link dev.mortise.lock.LockBackendException} within the operation timeout.
 * {@link #close()} revokes the session leases (the server drops every hold and waiter of
 * this backend at once) and closes the jetcd client if the builder created it.
 */
public final class EtcdLockBackend implements LockBackend {

    private static final BackendGuarantees GUARANTEES = new BackendGuarantees(
            BackendGuarantees.LeaseModel.SESSION_BOUND, true, BackendGuarantees.Wakeup.PUSH,
            "The create revision of the holder's key: strictly increasing across the cluster for one key (and "
                    + "across keys, but for the parts of one acquireAll, which share their transaction's revision); "
                    + "it breaks only if the cluster loses its data (restored from an older snapshot, or "
                    + "rebuilt), never on leader failover, since every write is committed by a quorum.",
            // The shortest lease: one second. etcd lease TTLs are whole seconds: a shorter lease cannot be
            // kept as asked (it is rounded up to a second, then raised to etcd's minimum TTL, 2 s by default),
            // and a watchdog renewing every third of it would send keep-alives several times a second for
            // nothing. One second is the least TTL any etcd cluster can grant (one with an election timeout of
            // 666 ms or less); on a default cluster a 1 s lease is still kept 2 s.
            Duration.ofSeconds(1));

    private final LockEngine engine;
    private final Client client;
    private final boolean ownsClient;
    private final String description;
    private final AtomicBoolean closed = new AtomicBoolean();

    EtcdLockBackend(LockEngine engine, Client client, boolean ownsClient, String description) {
        this.engine = engine;
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
    }

    /** A builder: endpoints (or a client of your own), credentials, TLS, namespace, operation timeout. */
    public static EtcdLockBackendBuilder builder() {
        return new EtcdLockBackendBuilder();
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public BackendGuarantees guarantees() {
        return GUARANTEES;
    }

    /**
     * True: shared (read) holds are reader keys in the same queue as exclusive ones. A reader
     * holds the lock while no writer key (holder or waiter) has a lower create revision; a
     * writer while no key of either mode does. Waiting is first in, first out by revision,
     * so a waiting writer keeps every later reader out, and every grant's token is its key's
     * create revision. See the read-write section of {@code docs/etcd.md}.
     */
    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /**
     * True: a semaphore's permit holds are permit keys in the lock's queue, each with its count
     * and the stored permit count in its value; a permit key holds when only permit keys are
     * before it and their counts plus its own fit the stored count (the count in the oldest
     * permit key). Waiting is first in, first out by create revision: a waiter for many is not
     * overtaken by later ones for few. Tokens are the keys' create revisions, as for every hold.
     * The stored count lives only in the keys, so it ends with the last of them. See the
     * semaphore section of {@code docs/etcd.md}.
     */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * Rewrites the stored count in every permit key of {@code key}: one range read, one
     * transaction of puts (each key kept on its lease, its create revision unchanged) and one
     * read of keys queued meanwhile; nothing with no permit keys. Waiters see the put on their
     * own key and look again if they now fit.
     */
    @Override
    public void setPermits(String key, int limit) {
        engine.setPermits(key, limit);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return engine.tryAcquire(request);
    }

    /**
     * Every part in one etcd transaction, all or nothing: for each part, the read of the keys
     * that would keep it waiting and the put of its key, as {@link #tryAcquire} sends them, so
     * etcd creates every part's key at one revision (each part's fencing token; the parts of one
     * batch share its value, each key's tokens still strictly increase) or none. When any part
     * must wait (a holder, a waiter before it; for a shared part a writer key, holding or
     * waiting), every key is taken out before this returns an empty list. Renewed parts on an
     * existing session lease cost one {@code Txn}, a refusal one more; explicit-lease parts first
     * take one lease each (the grants sent together), and a refusal revokes them (sent together).
     * Shared and exclusive parts mix freely. Returns null, sending nothing, for more than 64
     * parts (two operations a part must fit etcd's default {@code --max-txn-ops} of 128).
     * See the multi-key section of {@code docs/etcd.md}.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return engine.tryAcquireAll(requests);
    }

    /**
     * Queues our key and waits on etcd watches: woken when the key that keeps us waiting is deleted,
     * the watch breaks, our lease is found lost, or every third of the lease TTL; a grant only on a
     * look that shows our key with its revision and the lease alive. On the caller's thread, the
     * same steps as {@link #acquireAsync}. On timeout, interrupt or failure our key is taken out.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return WaitDriver.await(engine.waitFor(request, wait), request.key());
    }

    /**
     * {@link #acquire}'s wait without a thread while it sleeps: a watch event, a broken watch, a lost
     * lease or a timer schedules the next step on Mortise's shared threads ({@link WaitDriver#start}),
     * where a look at the queue blocks no longer than the operation timeout. Completing the answer
     * (cancel, the client's deadline) takes our key out at the next step boundary; a grant that races
     * it is released.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return WaitDriver.start(this, engine.waitFor(request, wait));
    }

    /**
     * Renews the hold for {@code lease} (rounded up to whole seconds): a keep-alive of its
     * etcd lease when that lease was granted for the same TTL; otherwise its key is moved, in
     * one transaction that keeps its create revision (the fencing token), to a lease of that
     * TTL: a new lease of its own for an explicit-lease hold, the session lease of that TTL
     * for a renewed hold. So {@code extend(30 s)} of a 2 s lease makes etcd keep the hold
     * 30 s.
     *
     * <p>Answers the TTL etcd then keeps the hold for: the granted TTL of the etcd lease its key
     * is on (grants carry the same). It is {@code lease} rounded up to whole seconds, raised to
     * etcd's minimum TTL (1.5 election timeouts rounded up to a second: 2 s with etcd's default
     * 1 s election timeout), so never less than {@code lease}. Measured on etcd 3.4.23 with a 1 s
     * election timeout: 600 ms, 1 s and 2 s are all granted 2 s, 2.5 s is granted 3 s.
     *
     * @return the TTL in force; empty if the key or its lease is gone
     */
    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return engine.renew(grant, lease);
    }

    /** Moves the key to a lease of its own with {@code linger}'s TTL that nobody keeps alive. */
    @Override
    public boolean linger(Grant grant, Duration linger) {
        return engine.linger(grant, linger);
    }

    /**
     * Renews every hold with {@code lease}: holds whose etcd lease has that TTL in one
     * keep-alive and one check per lease (the watchdog's common case: every renewed hold on
     * the one session lease), any other hold moved to a lease of that TTL as in
     * {@link #renew}. Each renewed hold answers the TTL of the lease its key is on, as
     * {@link #renew} does.
     */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return engine.renewAll(grants, lease);
    }

    @Override
    public boolean release(Grant grant) {
        return engine.release(grant);
    }

    /**
     * Reads the lock's queue: one linearizable range read of every key under its prefix
     * (oldest create revision first), then one {@code LeaseTimeToLive} per distinct lease of
     * the holding keys, sent together. Holders are the keys that hold by the queue's rule (the
     * oldest key if it is a writer's; else every reader key older than the oldest writer key),
     * each with the owner stored as its value, its create revision as the token and its lease's
     * remaining TTL (whole seconds, rounded down by etcd; 0 when less than a second is left).
     * Waiters are the other keys. Nothing is written, kept alive or woken. If a holder's lease
     * runs out between the two reads, the queue is read again (up to three times).
     */
    @Override
    public KeyState inspect(String key) {
        return engine.inspect(key);
    }

    /**
     * Present: one key per holder id under the namespace ({@code <namespace>#wait/<holder id>/<nonce>}),
     * on an etcd lease of the record's TTL (whole seconds, rounded up, at least etcd's minimum TTL)
     * that etcd expires; a republish keeps the same lease alive, a removal revokes it. See the
     * wait-record section of {@code docs/etcd.md}.
     */
    @Override
    public Optional<WaitRecords> waitRecords() {
        return Optional.of(engine.waitRecords());
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        engine.addGrantListener(listener);
    }

    @Override
    public void ping() {
        engine.ping();
    }

    /** The jetcd client this backend uses (yours, or the one the builder created). */
    public Client client() {
        return client;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            engine.close();
        } finally {
            if (ownsClient) {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "EtcdLockBackend[" + description + "]";
    }
}
