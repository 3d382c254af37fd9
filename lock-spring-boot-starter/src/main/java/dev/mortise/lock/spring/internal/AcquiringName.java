package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.LockAccess;

/**
 * The {@code @DistributedLock} name and mode of the acquire running on this thread, so that lock
 * events (told on the acquiring thread) are tagged with them rather than as programmatic.
 */
public final class AcquiringName implements AutoCloseable {

    private record Current(String name, LockAccess mode) {
    }

    private static final ThreadLocal<Current> NAME = new ThreadLocal<>();

    private final Current previous;

    private AcquiringName(Current previous) {
        this.previous = previous;
    }

    static AcquiringName set(String name, LockAccess mode) {
        AcquiringName scope = new AcquiringName(NAME.get());
        NAME.set(new Current(name, mode));
        return scope;
    }

    /** The name of the annotated acquire under way on this thread, or {@code null}. */
    public static String current() {
        Current current = NAME.get();
        return current == null ? null : current.name();
    }

    /**
     * The mode of the annotated acquire under way on this thread, or {@code null} (lock events do
     * not carry the mode, so the metrics take it from here).
     */
    public static LockAccess currentMode() {
        Current current = NAME.get();
        return current == null ? null : current.mode();
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
