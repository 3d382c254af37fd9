package dev.mortise.lock.internal.group;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Ordinary leases of one client held and ended as one: valid while every part is, worth the
 * least of them, extended together, lost once (the first part's loss is the loss of the whole,
 * told once to every listener), closed together in reverse order. The base of the handles that
 * hold several leases (a multi-key lease, a several-permit lease): a subclass adds only what it
 * names (keys, slots, tokens) and its {@code toString}.
 *
 * <p>Thread-safe: the parts are thread-safe, the loss state is guarded by a monitor of its own
 * (never the handle, which users may synchronize on), and listeners run outside it.
 *
 * @param <S> the handle type {@link #onLost} returns (the subclass's interface)
 */
public abstract class GroupLease<S> {

    private static final Logger log = LoggerFactory.getLogger(GroupLease.class);

    private final List<LockLease> parts;
    /** Names the group in messages and logs, e.g. "multi-key lock [a, b]". */
    private final String what;
    private final String backend;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object monitor = new Object();
    private final List<Consumer<LockLostEvent>> listeners = new ArrayList<>(); // guarded by monitor
    private LockLostEvent lost; // guarded by monitor

    /**
     * @param parts   the leases in the order they were taken (they are closed in reverse)
     * @param what    names the group in messages and logs, e.g. "multi-key lock [a, b]"
     * @param backend the backend that granted them
     */
    protected GroupLease(List<LockLease> parts, String what, String backend) {
        this.parts = List.copyOf(parts);
        this.what = what;
        this.backend = backend;
        for (LockLease part : this.parts) {
            part.onLost(this::partLost);
        }
    }

    public List<LockLease> parts() {
        return parts;
    }

    /** Whether {@link #close()} (or {@link #closeLingering}) was called, for {@code toString}. */
    protected boolean isClosed() {
        return closed.get();
    }

    public boolean isValid() {
        if (closed.get()) {
            return false;
        }
        for (LockLease part : parts) {
            if (!part.isValid()) {
                return false;
            }
        }
        return true;
    }

    public Duration remaining() {
        if (closed.get()) {
            return Duration.ZERO;
        }
        Duration least = null;
        for (LockLease part : parts) {
            Duration left = part.remaining();
            if (least == null || left.compareTo(least) < 0) {
                least = left;
            }
        }
        return least == null ? Duration.ZERO : least;
    }

    /** A closed or lost part throws {@link LockLostException} itself, naming its key. */
    public void ensureValid() {
        for (LockLease part : parts) {
            part.ensureValid();
        }
    }

    /**
     * Extends every part; an unacceptable lease is refused by the first part before any is
     * touched. Other failures do not stop the remaining parts and are thrown together.
     */
    public void extend(Duration lease) {
        List<RuntimeException> failures = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            try {
                parts.get(i).extend(lease);
            } catch (IllegalArgumentException e) {
                if (i == 0) {
                    throw e;
                }
                failures.add(e);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        throwTogether(failures);
    }

    /** Adds a listener for the loss of the whole; told at once (on this thread) if it is already lost. */
    @SuppressWarnings("unchecked") // S is the subclass's own interface: this handle is one
    public S onLost(Consumer<LockLostEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("onLost listener must not be null (" + what + ", backend '"
                    + backend + "')");
        }
        LockLostEvent already;
        synchronized (monitor) {
            already = lost;
            if (already == null) {
                listeners.add(listener);
            }
        }
        if (already != null) {
            tell(listener, already);
        }
        return (S) this;
    }

    private void partLost(LockLostEvent event) {
        List<Consumer<LockLostEvent>> toTell;
        synchronized (monitor) {
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
            log.warn("onLost listener of the {} on backend '{}' threw; the holds are unaffected", what, backend, e);
        }
    }

    /** Closes every part at once, as {@link #closeLingering} with no linger. */
    public void close() {
        closeLingering(Duration.ZERO);
    }

    /** Closes every part once (later calls do nothing), leaving each to linger {@code linger}. */
    public void closeLingering(Duration linger) {
        if (linger == null) {
            throw new IllegalArgumentException("linger must not be null (" + what + ", backend '" + backend
                    + "'); pass Duration.ZERO to release at once");
        }
        if (closed.compareAndSet(false, true)) {
            throwTogether(closeAll(parts, linger));
        }
    }

    /**
     * A part that closes in two steps: at once locally (its validity checked, then no longer lost by
     * its deadline passing), returning the server call that finishes it, or null if it was closed.
     */
    public interface Part {
        Runnable closeLocally(Duration linger);
    }

    /**
     * Closes {@code leases} in reverse order, each whatever the others did, with the thread's
     * interrupt flag cleared meanwhile (a release is a server call that an interrupted thread
     * might not be able to make) and set again afterwards. Every {@link Part} is closed locally
     * first, at the instant of this call, and released on the server after: a part whose lease runs
     * out while another part's release takes its time was let go while valid, which is no loss.
     *
     * @return the failures, in the order they happened
     */
    public static List<RuntimeException> closeAll(List<LockLease> leases, Duration linger) {
        boolean interrupted = Thread.interrupted();
        List<RuntimeException> failures = new ArrayList<>();
        try {
            List<Runnable> releases = new ArrayList<>(leases.size());
            for (int i = leases.size() - 1; i >= 0; i--) {
                LockLease lease = leases.get(i);
                try {
                    Runnable release = lease instanceof Part part ? part.closeLocally(linger)
                            : () -> lease.closeLingering(linger);
                    if (release != null) {
                        releases.add(release);
                    }
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
            for (Runnable release : releases) {
                try {
                    release.run();
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
    public static void throwTogether(List<RuntimeException> failures) {
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
}
