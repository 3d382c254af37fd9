package dev.mortise.lock.test;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-process backend with the knobs {@link TestLockClient} turns: renewals that fail, and
 * holds taken away on the server with their holder told at once (as a server that pushes
 * session events would). Keeps a record of every hold it granted and still counts as held,
 * with its lease end on the server's ticker, so a test can read a key's holder. One instance
 * serves every client of a test's server ({@link TestLockClient#anotherClient()}): each client
 * subscribes its grant listener, which ignores the grants of other clients. Thread-safe.
 */
final class ControlledBackend implements LockBackend {

    /** What the server holds for one owner, as this backend saw it granted, renewed and released. */
    record Held(Grant grant, LockMode mode, long expiresAtNanos) {
    }

    private final LocalLockBackend local;
    private final LocalLockServer server;
    private final Ticker ticker;
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    /** key → owner → hold (guarded by the key's map, under {@code synchronized (this)} for writes). */
    private final Map<String, Map<String, Held>> held = new ConcurrentHashMap<>();
    private volatile boolean renewalsFail;
    private final AtomicLong thieves = new AtomicLong();
    private static final String THIEF = "lock-test-thief-";

    ControlledBackend(LocalLockServer server) {
        this.server = server;
        this.local = new LocalLockBackend(server);
        this.ticker = server.ticker();
    }

    LocalLockServer server() {
        return server;
    }

    void failRenewals(boolean fail) {
        renewalsFail = fail;
    }

    // ---- the SPI ------------------------------------------------------------------------

    @Override
    public String name() {
        return local.name();
    }

    @Override
    public BackendGuarantees guarantees() {
        return local.guarantees();
    }

    @Override
    public boolean supportsSharedMode() {
        return local.supportsSharedMode();
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Attempt attempt = local.tryAcquire(request);
        attempt.grant().ifPresent(grant -> record(grant, request.mode(), request.lease()));
        return attempt;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        Optional<Grant> grant = local.acquire(request, wait);
        grant.ifPresent(g -> record(g, request.mode(), request.lease()));
        return grant;
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        checkRenewals(grant.key());
        boolean renewed = local.renew(grant, lease);
        renewed(grant, lease, renewed);
        return renewed;
    }

    @Override
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        checkRenewals(grants.isEmpty() ? "(none)" : grants.iterator().next().key());
        Set<Grant> gone = local.renewAll(grants, lease);
        for (Grant grant : grants) {
            renewed(grant, lease, !gone.contains(grant));
        }
        return gone;
    }

    @Override
    public boolean linger(Grant grant, Duration linger) {
        checkRenewals(grant.key());
        boolean kept = local.linger(grant, linger);
        renewed(grant, linger, kept);
        return kept;
    }

    @Override
    public boolean release(Grant grant) {
        boolean released = local.release(grant);
        forget(grant.key(), grant.owner());
        return released;
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        listeners.add(listener);
    }

    @Override
    public void ping() {
        local.ping();
    }

    /** Nothing to close: the server and this backend outlive each client built on them. */
    @Override
    public void close() {
    }

    // ---- what the test does to the server -------------------------------------------------

    /** The holds of {@code key} the server still honours, oldest grant first. */
    synchronized List<Held> holders(String key) {
        Map<String, Held> owners = held.get(key);
        if (owners == null) {
            return List.of();
        }
        long now = ticker.read();
        owners.values().removeIf(h -> now - h.expiresAtNanos() >= 0);
        List<Held> result = new ArrayList<>(owners.values());
        result.sort((a, b) -> Long.compare(a.grant().fencingToken(), b.grant().fencingToken()));
        return result;
    }

    /** Drops every hold of {@code key} on the server and tells each holder it is gone for {@code reason}. */
    void dropAll(String key, LostReason reason) {
        List<Held> dropped;
        synchronized (this) {
            Map<String, Held> owners = held.remove(key);
            dropped = owners == null ? List.of() : new ArrayList<>(owners.values());
        }
        server.forget(key);
        tell(dropped, reason);
    }

    /** Drops the hold of {@code key} with {@code token}; false if no hold of it has that token. */
    boolean drop(String key, long token, LostReason reason) {
        Held found = null;
        for (Held h : holders(key)) {
            if (h.grant().fencingToken() == token) {
                found = h;
            }
        }
        if (found == null) {
            return false;
        }
        forget(key, found.grant().owner());
        server.forget(key, found.grant().owner());
        tell(List.of(found), reason);
        return true;
    }

    /** Whether {@code owner} is one {@link #seize} made up. */
    static boolean isThief(String owner) {
        return owner.startsWith(THIEF);
    }

    /** Another owner takes {@code key} for {@code lease}; the holders are told their hold was taken. */
    Grant seize(String key, Duration lease) {
        String owner = THIEF + thieves.incrementAndGet();
        List<Held> dropped;
        Grant grant;
        synchronized (this) {
            Map<String, Held> owners = held.remove(key);
            dropped = owners == null ? List.of() : new ArrayList<>(owners.values());
            grant = server.seize(key, owner, lease);
            record(grant, LockMode.EXCLUSIVE, lease);
        }
        tell(dropped, LostReason.RENEWAL_REJECTED);
        return grant;
    }

    // ---- bookkeeping --------------------------------------------------------------------

    private void tell(List<Held> dropped, LostReason reason) {
        for (Held h : dropped) {
            for (GrantListener listener : listeners) {
                listener.lost(h.grant(), reason, null);
            }
        }
    }

    private synchronized void record(Grant grant, LockMode mode, Duration lease) {
        held.computeIfAbsent(grant.key(), k -> new ConcurrentHashMap<>())
                .put(grant.owner(), new Held(grant, mode, grant.requestedAtNanos() + lease.toNanos()));
    }

    private synchronized void renewed(Grant grant, Duration lease, boolean kept) {
        Map<String, Held> owners = held.get(grant.key());
        Held h = owners == null ? null : owners.get(grant.owner());
        if (h == null) {
            return;
        }
        if (kept) {
            owners.put(grant.owner(), new Held(h.grant(), h.mode(), ticker.read() + lease.toNanos()));
        } else {
            owners.remove(grant.owner());
        }
    }

    private synchronized void forget(String key, String owner) {
        Map<String, Held> owners = held.get(key);
        if (owners != null) {
            owners.remove(owner);
            if (owners.isEmpty()) {
                held.remove(key);
            }
        }
    }

    private void checkRenewals(String key) {
        if (renewalsFail) {
            throw new LockBackendException("Renewals fail on purpose (lock '" + key + "', backend 'local'): "
                    + "TestLockClient.failRenewals(true) is in force; call failRenewals(false) to end the outage",
                    key, "local", null);
        }
    }
}
