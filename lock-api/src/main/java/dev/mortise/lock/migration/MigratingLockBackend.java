package dev.mortise.lock.migration;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The dual-write phase of moving locks from one store to another without a flag day: every
 * hold is taken in the {@code from} backend and then in the {@code to} backend, and released in
 * the reverse order. During a rolling deploy, instances still on the old version (locking
 * only {@code from}) and instances on this backend exclude each other through {@code from};
 * once every instance runs this backend, the next deploy can lock {@code to} alone and the
 * instances still on this backend exclude it through {@code to}.
 *
 * <pre>{@code
 * LockBackend backend = new MigratingLockBackend(redisBackend, etcdBackend);   // from Redis to etcd
 * }</pre>
 *
 * <p>What a hold is worth is the lesser of the two: renewals go to both, validity and the
 * applied lease are the minimum of both backends', the shortest lease is the larger of their
 * minimums, and a hold either store loses is lost. <b>Fencing tokens are those of the
 * {@code to} backend</b>, so storage fenced during the migration keeps working afterwards; a
 * store fenced with {@code from}'s tokens must be re-fenced (its tokens are unrelated numbers).
 * Waiting is {@code from}'s native wait, then {@code to}'s for what is left of the wait.
 * Both backends are owned (closed) by this one. Thread-safe.
 */
public final class MigratingLockBackend implements LockBackend {

    private final LockBackend from;
    private final LockBackend to;

    /**
     * @param from the store the locks are moving away from (taken first, released last)
     * @param to   the store the locks are moving to (its fencing tokens are reported)
     */
    public MigratingLockBackend(LockBackend from, LockBackend to) {
        this.from = Objects.requireNonNull(from, "from: the backend locks are moving away from");
        this.to = Objects.requireNonNull(to, "to: the backend locks are moving to");
        if (from == to) {
            throw new IllegalArgumentException("A migration needs two different backends, got '" + from.name()
                    + "' twice: pass the old store as 'from' and the new one as 'to'");
        }
        if (from.ticker() != to.ticker()) {
            // A grant pairs two requests' start times: they must be on one clock.
            throw new IllegalArgumentException("A migration from '" + from.name() + "' to '" + to.name()
                    + "' needs both on one ticker, got " + from.ticker() + " and " + to.ticker()
                    + ": build both in-process servers on the same ticker, or neither on a ticker of its own");
        }
    }

    /** The pair of holds behind one grant of this backend. */
    private record Pair(Grant old, Grant next) {
    }

    @Override
    public String name() {
        return to.name();
    }

    /** The backend the locks are moving away from. */
    public LockBackend from() {
        return from;
    }

    /** The backend the locks are moving to. */
    public LockBackend to() {
        return to;
    }

    @Override
    public BackendGuarantees guarantees() {
        BackendGuarantees next = to.guarantees();
        BackendGuarantees old = from.guarantees();
        return new BackendGuarantees(
                old.leaseModel() == next.leaseModel() ? next.leaseModel() : BackendGuarantees.LeaseModel.SESSION_BOUND,
                old.fair() && next.fair(),
                old.wakeup() == BackendGuarantees.Wakeup.PUSH ? next.wakeup() : BackendGuarantees.Wakeup.POLL,
                "Migration from '" + from.name() + "' to '" + to.name() + "': the tokens are '" + to.name() + "''s. "
                        + next.fencing(),
                max(old.minimumLease(), next.minimumLease()));
    }

    /**
     * Shared holds where both stores grant them: every request, with its mode, goes to the old
     * store and then the new one, so a shared hold is a share in each and excludes writers on
     * either store (clients still on one store included).
     */
    @Override
    public boolean supportsSharedMode() {
        return from.supportsSharedMode() && to.supportsSharedMode();
    }

    /**
     * False, whatever the two stores support: a semaphore over a migration is the slot fallback, whose
     * slots are ordinary locks taken in both stores, so the bound holds for instances on either side.
     */
    @Override
    public boolean supportsPermits() {
        return false;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Attempt old = from.tryAcquire(request);
        if (old.grant().isEmpty()) {
            return old;
        }
        Attempt next;
        try {
            next = to.tryAcquire(request);
        } catch (RuntimeException e) {
            releaseQuietly(from, old.grant().get(), e);
            throw e;
        }
        if (next.grant().isEmpty()) {
            from.release(old.grant().get());
            return next;
        }
        return Attempt.granted(pair(old.grant().get(), next.grant().get()));
    }

    /**
     * Natively only when both stores batch: the keys are taken together in the old store and then
     * together in the new one, and paired as {@link #tryAcquire} pairs one key. A key busy in either
     * store gives back what the old store granted (empty); the new store answering {@code null} (no
     * native batch) gives it back too and answers {@code null}, so the core takes the keys one by one.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        List<Grant> olds = from.tryAcquireAll(requests);
        if (olds == null || olds.isEmpty()) {
            return olds;
        }
        List<Grant> nexts;
        try {
            nexts = to.tryAcquireAll(requests);
        } catch (RuntimeException e) {
            for (Grant old : olds) {
                releaseQuietly(from, old, e);
            }
            throw e;
        }
        if (nexts == null || nexts.isEmpty()) {
            RuntimeException failure = null;
            for (Grant old : olds) {
                try {
                    from.release(old);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
            return nexts;
        }
        List<Grant> pairs = new ArrayList<>(nexts.size());
        for (int i = 0; i < nexts.size(); i++) {
            pairs.add(pair(olds.get(i), nexts.get(i)));
        }
        return pairs;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        Optional<Grant> old = from.acquire(request, wait);
        if (old.isEmpty()) {
            return old;
        }
        Optional<Grant> next;
        try {
            long left = Deadlines.left(deadline);
            next = left == 0 ? to.tryAcquire(request).grant() : to.acquire(request, Duration.ofNanos(left));
        } catch (InterruptedException | RuntimeException e) {
            releaseQuietly(from, old.get(), e);
            throw e;
        }
        if (next.isEmpty()) {
            from.release(old.get());
            return Optional.empty();
        }
        return Optional.of(pair(old.get(), next.get()));
    }

    private static Grant pair(Grant old, Grant next) {
        // Validity counts from the earlier request: the old store's hold started first; the pair is
        // kept for the shorter of the leases the two stores applied.
        Duration applied = old.appliedLease().map(a -> next.appliedLease().map(b -> min(a, b)).orElse(a))
                .orElse(next.appliedLease().orElse(null));
        return new Grant(next.key(), next.owner(), next.fencingToken(),
                Math.min(old.requestedAtNanos() - next.requestedAtNanos(), 0) + next.requestedAtNanos(),
                applied, new Pair(old, next));
    }

    private static Pair parts(Grant grant) {
        return grant.state();
    }

    /** Renews on both stores; the pair is kept for the shorter of the two leases they applied. */
    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        Pair pair = parts(grant);
        Optional<Duration> old = from.renew(pair.old(), lease);
        Optional<Duration> next = to.renew(pair.next(), lease);
        return old.isPresent() && next.isPresent() ? Optional.of(min(old.get(), next.get())) : Optional.empty();
    }

    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        List<Grant> olds = new ArrayList<>(grants.size());
        List<Grant> nexts = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            Pair pair = parts(grant);
            olds.add(pair.old());
            nexts.add(pair.next());
        }
        Renewals old = from.renewAll(olds, lease);
        Renewals next = to.renewAll(nexts, lease);
        Set<Grant> gone = new HashSet<>();
        Map<Grant, Duration> applied = new HashMap<>();
        for (Grant grant : grants) {
            Pair pair = parts(grant);
            if (old.gone().contains(pair.old()) || next.gone().contains(pair.next())) {
                gone.add(grant);
            } else {
                applied.put(grant, min(old.applied(pair.old()).orElse(lease), next.applied(pair.next()).orElse(lease)));
            }
        }
        return Renewals.of(gone, applied);
    }

    @Override
    public boolean linger(Grant grant, Duration linger) {
        Pair pair = parts(grant);
        boolean next = to.linger(pair.next(), linger);
        boolean old = from.linger(pair.old(), linger);
        return old && next;
    }

    @Override
    public Duration validity(Duration lease) {
        return min(from.validity(lease), to.validity(lease));
    }

    /** The ticker both stores share (checked at construction). */
    @Override
    public dev.mortise.lock.spi.Ticker ticker() {
        return to.ticker();
    }

    /** Releases in the reverse order of acquiring: the new store, then the old one. */
    @Override
    public boolean release(Grant grant) {
        Pair pair = parts(grant);
        boolean next;
        try {
            next = to.release(pair.next());
        } catch (RuntimeException e) {
            // Still free the old store (the one old-version instances wait on); the new hold expires.
            releaseQuietly(from, pair.old(), e);
            throw e;
        }
        boolean old = from.release(pair.old());
        return old && next;
    }

    /** Both stores' wait records together (see {@link MigratingWaitRecords}); empty if either keeps none. */
    @Override
    public java.util.Optional<dev.mortise.lock.spi.WaitRecords> waitRecords() {
        var old = from.waitRecords();
        var next = to.waitRecords();
        if (old.isEmpty() || next.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new MigratingWaitRecords(old.get(), next.get()));
    }

    /**
     * Both stores' view of {@code key}, reported as the {@code to} store's, whose tokens this backend
     * hands out: every holder of {@code to} with its token, its remaining lease the lesser of the
     * two stores' where it holds both; then the holders only {@code from} has (instances still on
     * the old version, or a hold half taken) with no token, since {@code from}'s numbers are
     * unrelated to the tokens this backend reports. Where the stores disagree on the mode (a hold one
     * of them lost), {@code to}'s holders alone are reported. Waiters are the sum of both stores'
     * (a request waits in one store at a time), unknown if either cannot tell. Reads {@code from}
     * first, then {@code to}.
     */
    @Override
    public KeyState inspect(String key) {
        KeyState old = from.inspect(key);
        KeyState next = to.inspect(key);
        OptionalInt waiters = old.waiters().isPresent() && next.waiters().isPresent()
                ? OptionalInt.of(old.waiters().getAsInt() + next.waiters().getAsInt()) : OptionalInt.empty();
        Map<String, KeyState.Holder> oldByOwner = new LinkedHashMap<>();
        old.holders().forEach(h -> oldByOwner.put(h.owner(), h));
        List<KeyState.Holder> holders = new ArrayList<>();
        for (KeyState.Holder holder : next.holders()) {
            KeyState.Holder both = oldByOwner.remove(holder.owner());
            Optional<Duration> remaining = holder.remaining();
            if (both != null && both.remaining().isPresent()) {
                remaining = remaining.map(r -> min(r, both.remaining().get())).or(both::remaining);
            }
            holders.add(new KeyState.Holder(holder.owner(), holder.fencingToken(), remaining));
        }
        LockMode mode = next.mode() != null ? next.mode() : old.mode();
        boolean compatible = next.mode() == null || (next.mode() == LockMode.SHARED && old.mode() == LockMode.SHARED);
        if (compatible) {
            for (KeyState.Holder only : oldByOwner.values()) {
                holders.add(new KeyState.Holder(only.owner(), OptionalLong.empty(), only.remaining()));
            }
        }
        return holders.isEmpty() ? KeyState.free(waiters) : new KeyState(mode, holders, waiters);
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        // Events carry a part's grant; the core routes them by key and owner, which both parts share.
        from.addGrantListener(listener);
        to.addGrantListener(listener);
    }

    @Override
    public void ping() {
        from.ping();
        to.ping();
    }

    @Override
    public void close() {
        try {
            to.close();
        } finally {
            from.close();
        }
    }

    private static void releaseQuietly(LockBackend backend, Grant grant, Throwable failure) {
        try {
            backend.release(grant);
        } catch (RuntimeException e) {
            failure.addSuppressed(new LockBackendException("Releasing the '" + backend.name() + "' half of lock '"
                    + grant.key() + "' after the other half failed also failed; it ends with its lease",
                    grant.key(), backend.name(), e));
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public String toString() {
        return "MigratingLockBackend[" + from.name() + " -> " + to.name() + "]";
    }
}
