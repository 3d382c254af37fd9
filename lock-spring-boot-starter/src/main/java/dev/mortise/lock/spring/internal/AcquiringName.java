package dev.mortise.lock.spring.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code @DistributedLock} name of an acquire under way, so that lock events are tagged with
 * it rather than as programmatic. (The mode needs no such channel: every {@code LockEvent}
 * carries it.)
 *
 * <p>A blocking acquire sets the name on its thread ({@link #set}), where the client tells its
 * events. An asynchronous one ({@code LockClient.acquireAsync}) has its events told on Mortise's
 * shared threads, so it announces the name for its backend and keys while it is under way
 * ({@link #expect}); an event of one of those keys on a thread without a name of its own takes
 * it. A programmatic acquire of the same key on another thread in that window is tagged with the
 * name too (the events carry no owner to tell them apart): a metrics tag, never a lock decision.
 */
public final class AcquiringName implements AutoCloseable {

    private static final ThreadLocal<String> NAME = new ThreadLocal<>();
    /** Names of asynchronous acquires under way, by backend and key, with how many share each. */
    private static final Map<String, Expected> EXPECTED = new ConcurrentHashMap<>();

    private record Expected(String name, int count) {
    }

    private final String previous;

    private AcquiringName(String previous) {
        this.previous = previous;
    }

    static AcquiringName set(String name) {
        AcquiringName scope = new AcquiringName(NAME.get());
        NAME.set(name);
        return scope;
    }

    /**
     * Announces an asynchronous acquire of {@code keys} on {@code backend} named {@code name}.
     *
     * @return run once when its answer is in (its events have then been told)
     */
    static Runnable expect(String backend, List<String> keys, String name) {
        for (String key : keys) {
            EXPECTED.merge(slot(backend, key), new Expected(name, 1),
                    (old, one) -> new Expected(old.name(), old.count() + 1));
        }
        return new Runnable() {
            private boolean done;

            @Override
            public synchronized void run() {
                if (done) {
                    return;
                }
                done = true;
                for (String key : keys) {
                    EXPECTED.computeIfPresent(slot(backend, key),
                            (slot, old) -> old.count() == 1 ? null : new Expected(old.name(), old.count() - 1));
                }
            }
        };
    }

    /** The name of the annotated acquire under way on this thread, or {@code null}. */
    public static String current() {
        return NAME.get();
    }

    /**
     * The name of the annotated acquire whose event this is: the one under way on this thread, else
     * an asynchronous one of {@code key} on {@code backend} under way, else {@code null}.
     */
    public static String of(String backend, String key) {
        String name = NAME.get();
        if (name != null) {
            return name;
        }
        if (EXPECTED.isEmpty()) {
            return null; // no asynchronous annotated acquire under way: no key string built per event
        }
        Expected expected = EXPECTED.get(slot(backend, key));
        return expected == null ? null : expected.name();
    }

    private static String slot(String backend, String key) {
        return backend + '\u0000' + key;
    }

    @Override
    public void close() {
        if (previous == null) {
            NAME.remove();
        } else {
            NAME.set(previous);
        }
    }
}
