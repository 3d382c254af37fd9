package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.fencing.StaleFencingTokenException;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@code onRejected} hook of the auto-configured {@code JdbcFenceGuard}: tells every
 * {@link FenceRejectionListener} of a refusal, tagged with the lock backend and name that
 * {@link Fences} set around its check (the guard itself only knows the resource and tokens).
 */
public final class FenceRejections implements Consumer<StaleFencingTokenException> {

    /** The {@code backend} of a refusal outside {@link Fences} (the guard used directly). */
    public static final String UNKNOWN_BACKEND = "unknown";
    /** The {@code name} of a refusal outside {@code @DistributedLock}. */
    public static final String PROGRAMMATIC = "programmatic";

    private static final ThreadLocal<String[]> CONTEXT = new ThreadLocal<>();

    private final Supplier<List<FenceRejectionListener>> listeners;

    /** @param listeners looked up at each refusal (refusals are rare; listeners may come late) */
    public FenceRejections(Supplier<List<FenceRejectionListener>> listeners) {
        this.listeners = listeners;
    }

    @Override
    public void accept(StaleFencingTokenException stale) {
        String[] context = CONTEXT.get();
        String backend = context == null ? UNKNOWN_BACKEND : context[0];
        String name = context == null ? PROGRAMMATIC : context[1];
        for (FenceRejectionListener listener : listeners.get()) {
            listener.rejected(backend, name, stale);
        }
    }

    /**
     * Runs {@code check} with the refusals it causes told to the listeners as {@code backend}
     * and {@code name}: for a check made on the guard directly (a connection of your own), whose
     * refusals are otherwise told as {@value #UNKNOWN_BACKEND}, or for {@link Fences} called on
     * behalf of a named lock (the starter does so for {@code @DistributedLock(fence = ...)}),
     * whose tag {@link Fences} keeps. Nested calls: the innermost tag applies.
     */
    public static void tagged(String backend, String name, Runnable check) {
        String[] previous = CONTEXT.get();
        CONTEXT.set(new String[] {backend, name});
        try {
            check.run();
        } finally {
            if (previous == null) {
                CONTEXT.remove();
            } else {
                CONTEXT.set(previous);
            }
        }
    }

    /** A check of {@link Fences}: tagged {@code backend} and {@value #PROGRAMMATIC}, unless a caller tagged it. */
    static void programmatic(String backend, Runnable check) {
        if (CONTEXT.get() == null) {
            tagged(backend, PROGRAMMATIC, check);
        } else {
            check.run();
        }
    }
}
