package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.MultiLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The {@link MultiLease} of {@link MultiAcquirer}: a group of ordinary leases of one client, in
 * canonical order. Not API: use {@link MultiLease}.
 *
 * <p>Thread-safe: the parts are thread-safe, the loss state is guarded by {@code this}, and
 * listeners run outside that lock.
 */
public final class DefaultMultiLease implements MultiLease {

    private static final Logger log = LoggerFactory.getLogger(DefaultMultiLease.class);

    private final String backend;
    private final Map<String, LockLease> parts;
    private final Map<String, LockMode> modes;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Consumer<LockLostEvent>> listeners = new ArrayList<>();
    private LockLostEvent lost;

    /** @param leases the leases in canonical order; {@code modes} the mode of each, in the same order */
    DefaultMultiLease(String backend, List<LockLease> leases, List<LockMode> modes) {
        this.backend = backend;
        Map<String, LockLease> byKey = new LinkedHashMap<>();
        Map<String, LockMode> byMode = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            byKey.put(leases.get(i).key(), leases.get(i));
            byMode.put(leases.get(i).key(), modes.get(i));
        }
        this.parts = Collections.unmodifiableMap(byKey);
        this.modes = Collections.unmodifiableMap(byMode);
        for (LockLease lease : this.parts.values()) {
            lease.onLost(this::partLost);
        }
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public List<String> keys() {
        return List.copyOf(parts.keySet());
    }

    @Override
    public List<LockLease> parts() {
        return List.copyOf(parts.values());
    }

    @Override
    public LockLease part(String key) {
        LockLease lease = key == null ? null : parts.get(key);
        if (lease == null) {
            throw new IllegalArgumentException("Key '" + key + "' is not a part of this multi-key lock (backend '"
                    + backend + "'); its keys are " + parts.keySet());
        }
        return lease;
    }

    @Override
    public LockMode mode(String key) {
        return modes.get(part(key).key());
    }

    @Override
    public long fencingToken(String key) {
        return part(key).fencingToken();
    }

    @Override
    public boolean isValid() {
        if (closed.get()) {
            return false;
        }
        for (LockLease lease : parts.values()) {
            if (!lease.isValid()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Duration remaining() {
        if (closed.get()) {
            return Duration.ZERO;
        }
        Duration least = null;
        for (LockLease lease : parts.values()) {
            Duration left = lease.remaining();
            if (least == null || left.compareTo(least) < 0) {
                least = left;
            }
        }
        return least == null ? Duration.ZERO : least;
    }

    @Override
    public void ensureValid() {
        // a closed part throws LockLostException itself, naming its key
        for (LockLease lease : parts.values()) {
            lease.ensureValid();
        }
    }

    @Override
    public void extend(Duration lease) {
        List<RuntimeException> failures = new ArrayList<>();
        boolean first = true;
        for (LockLease part : parts.values()) {
            try {
                part.extend(lease);
            } catch (IllegalArgumentException e) {
                if (first) {
                    throw e; // the lease itself is unacceptable: no part was touched
                }
                failures.add(e);
            } catch (RuntimeException e) {
                failures.add(e);
            }
            first = false;
        }
        throwTogether(failures);
    }

    @Override
    public MultiLease onLost(Consumer<LockLostEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("onLost listener must not be null (multi-key lock " + parts.keySet()
                    + ", backend '" + backend + "')");
        }
        LockLostEvent already;
        synchronized (this) {
            already = lost;
            if (already == null) {
                listeners.add(listener);
            }
        }
        if (already != null) {
            tell(listener, already);
        }
        return this;
    }

    /** A part's loss: the first one is the loss of the whole, told once to every listener. */
    private void partLost(LockLostEvent event) {
        List<Consumer<LockLostEvent>> toTell;
        synchronized (this) {
            if (lost != null) {
                return;
            }
            lost = event;
            toTell = List.copyOf(listeners);
            listeners.clear();
        }
        for (Consumer<LockLostEvent> listener : toTell) {
            tell(listener, event);
        }
    }

    private void tell(Consumer<LockLostEvent> listener, LockLostEvent event) {
        try {
            listener.accept(event);
        } catch (RuntimeException | Error e) {
            log.warn("onLost listener of the multi-key lock {} on backend '{}' threw; the lock is unaffected",
                    parts.keySet(), backend, e);
        }
    }

    @Override
    public void close() {
        closeLingering(Duration.ZERO);
    }

    @Override
    public void closeLingering(Duration linger) {
        if (linger == null) {
            throw new IllegalArgumentException("linger must not be null (multi-key lock " + parts.keySet()
                    + ", backend '" + backend + "'); pass Duration.ZERO to release at once");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        throwTogether(closeAll(new ArrayList<>(parts.values()), linger));
    }

    /**
     * Closes {@code leases} in reverse order, each whatever the others did, with the thread's
     * interrupt flag cleared meanwhile (a release is a server call that an interrupted thread
     * might not be able to make) and set again afterwards.
     *
     * @return the failures, in the order they happened
     */
    static List<RuntimeException> closeAll(List<LockLease> leases, Duration linger) {
        boolean interrupted = Thread.interrupted();
        List<RuntimeException> failures = new ArrayList<>();
        try {
            for (int i = leases.size() - 1; i >= 0; i--) {
                try {
                    leases.get(i).closeLingering(linger);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return failures;
    }

    /** Throws the first failure (a loss before others) with the rest suppressed into it; nothing if none. */
    static void throwTogether(List<RuntimeException> failures) {
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException primary = failures.stream().filter(f -> f instanceof LockLostException).findFirst()
                .orElse(failures.get(0));
        for (RuntimeException other : failures) {
            if (other != primary) {
                primary.addSuppressed(other);
            }
        }
        throw primary;
    }

    @Override
    public String toString() {
        return "MultiLease[backend=" + backend + ", keys=" + parts.keySet() + (closed.get() ? ", closed" : "") + "]";
    }
}
