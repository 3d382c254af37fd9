package dev.mortise.lock.test;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.Renewals;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-process backend with the knobs {@link TestLockClient} turns: renewals that fail, and
 * holds taken away on the server with their holder told at once (as a server that pushes
 * session events would: through the core's {@link GrantListener}, with the reason). One
 * instance serves every client of a test's server ({@link TestLockClient#anotherClient()}):
 * each client subscribes its grant listener, which ignores the holds of other clients.
 * Thread-safe; its own changes to the server are serialised.
 */
final class ControlledBackend extends ForwardingLockBackend {

    private static final String THIEF = "lock-test-thief-";

    private final LocalLockBackend local;
    private final LocalLockServer server;
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong thieves = new AtomicLong();
    private volatile boolean renewalsFail;

    ControlledBackend(LocalLockServer server) {
        this(server, new LocalLockBackend(server));
    }

    private ControlledBackend(LocalLockServer server, LocalLockBackend local) {
        super(local);
        this.server = server;
        this.local = local;
    }

    LocalLockServer server() {
        return server;
    }

    void failRenewals(boolean fail) {
        renewalsFail = fail;
    }

    /** Whether {@code owner} is one {@link #seize} made up. */
    static boolean isThief(String owner) {
        return owner.startsWith(THIEF);
    }

    // ---- the SPI: the local backend's (forwarded), renewals failing on demand ----------------

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        checkRenewals(grant.key());
        return super.renew(grant, lease);
    }

    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        checkRenewals(grants.isEmpty() ? "(none)" : grants.iterator().next().key());
        return super.renewAll(grants, lease);
    }

    @Override
    public boolean linger(Grant grant, Duration linger) {
        checkRenewals(grant.key());
        return super.linger(grant, linger);
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        listeners.add(listener);
    }

    /** Nothing to close: the server and this backend outlive each client built on them. */
    @Override
    public void close() {
    }

    // ---- what the test does to the server -------------------------------------------------

    /** What the server holds for {@code key} now (on its ticker). */
    KeyState holders(String key) {
        return local.inspect(key);
    }

    /**
     * Drops every hold of {@code key} on the server and tells each holder it is gone for
     * {@code reason}.
     *
     * @return how many holds were dropped
     */
    synchronized int dropAll(String key, LostReason reason) {
        List<KeyState.Holder> dropped = local.inspect(key).holders();
        server.forget(key);
        tell(key, dropped, reason);
        return dropped.size();
    }

    /** Drops the hold of {@code key} with {@code token} and tells its holder; false if no hold has that token. */
    synchronized boolean drop(String key, long token, LostReason reason) {
        for (KeyState.Holder holder : local.inspect(key).holders()) {
            if (holder.fencingToken().isPresent() && holder.fencingToken().getAsLong() == token
                    && server.forget(key, holder.owner())) {
                tell(key, List.of(holder), reason);
                return true;
            }
        }
        return false;
    }

    /** Another owner takes {@code key} for {@code lease}; the holders are told their hold was taken. */
    synchronized Grant seize(String key, Duration lease) {
        List<KeyState.Holder> dropped = local.inspect(key).holders();
        Grant grant = server.seize(key, THIEF + thieves.incrementAndGet(), lease);
        tell(key, dropped, LostReason.RENEWAL_REJECTED);
        return grant;
    }

    /** Tells every client's core (each ignores the holds of other clients). */
    private void tell(String key, List<KeyState.Holder> dropped, LostReason reason) {
        for (KeyState.Holder holder : dropped) {
            // A grant is known by key and owner: what the core needs to find the hold.
            Grant gone = new Grant(key, holder.owner(), holder.fencingToken().orElse(-1), 0, null);
            for (GrantListener listener : listeners) {
                listener.lost(gone, reason, null);
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
