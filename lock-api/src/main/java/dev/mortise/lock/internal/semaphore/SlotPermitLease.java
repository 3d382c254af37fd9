package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.PermitLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The {@link PermitLease} of {@link SlotSemaphore}: the slot leases of one acquisition, in slot
 * order. Not API.
 *
 * <p>Thread-safe: the parts are thread-safe, the loss state is guarded by {@code this}, and
 * listeners run outside that lock.
 */
final class SlotPermitLease implements PermitLease {

    private static final Logger log = LoggerFactory.getLogger(SlotPermitLease.class);

    private final String semaphore;
    private final String backend;
    private final List<Integer> slots;
    private final List<LockLease> parts;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Consumer<LockLostEvent>> listeners = new ArrayList<>();
    private LockLostEvent lost;

    /** @param taken the leases by slot, in ascending slot order */
    SlotPermitLease(String semaphore, String backend, Map<Integer, LockLease> taken) {
        this.semaphore = semaphore;
        this.backend = backend;
        this.slots = List.copyOf(taken.keySet());
        this.parts = List.copyOf(taken.values());
        for (LockLease part : parts) {
            part.onLost(this::partLost);
        }
    }

    @Override
    public String semaphore() {
        return semaphore;
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public int count() {
        return parts.size();
    }

    @Override
    public List<Integer> slots() {
        return slots;
    }

    @Override
    public List<LockLease> parts() {
        return parts;
    }

    @Override
    public List<Long> fencingTokens() {
        return parts.stream().map(LockLease::fencingToken).toList();
    }

    @Override
    public boolean isValid() {
        return !closed.get() && parts.stream().allMatch(LockLease::isValid);
    }

    @Override
    public Duration remaining() {
        if (closed.get()) {
            return Duration.ZERO;
        }
        return parts.stream().map(LockLease::remaining).min(Duration::compareTo).orElse(Duration.ZERO);
    }

    @Override
    public void ensureValid() {
        // a closed part throws LockLostException itself, naming its slot key
        for (LockLease part : parts) {
            part.ensureValid();
        }
    }

    @Override
    public void extend(Duration lease) {
        List<RuntimeException> failures = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            try {
                parts.get(i).extend(lease);
            } catch (IllegalArgumentException e) {
                if (i == 0) {
                    throw e; // the lease itself is unacceptable: no permit was touched
                }
                failures.add(e);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        throwTogether(failures);
    }

    @Override
    public PermitLease onLost(Consumer<LockLostEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("onLost listener must not be null (semaphore '" + semaphore
                    + "', backend '" + backend + "')");
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

    /** A permit's loss: the first one is the loss of the whole, told once to every listener. */
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
            log.warn("onLost listener of semaphore '{}' (slots {}) on backend '{}' threw; the permits are unaffected",
                    semaphore, slots, backend, e);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            throwTogether(closeAll(new ArrayList<>(parts)));
        }
    }

    /**
     * Closes {@code leases} in reverse order, each whatever the others did, with the thread's
     * interrupt flag cleared meanwhile (a release is a server call an interrupted thread might not
     * be able to make) and set again afterwards.
     *
     * @return the failures, in the order they happened
     */
    static List<RuntimeException> closeAll(List<LockLease> leases) {
        boolean interrupted = Thread.interrupted();
        List<RuntimeException> failures = new ArrayList<>();
        try {
            for (int i = leases.size() - 1; i >= 0; i--) {
                try {
                    leases.get(i).close();
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
        return "PermitLease[semaphore=" + semaphore + ", slots=" + slots + ", backend=" + backend
                + (closed.get() ? ", closed" : "") + "]";
    }
}
