package dev.mortise.lock.spring.internal;

/**
 * The {@code @DistributedLock} name of the acquire running on this thread, so that lock events
 * (told on the acquiring thread) are tagged with it rather than as programmatic. (The mode needs
 * no such channel: every {@code LockEvent} carries it.)
 */
public final class AcquiringName implements AutoCloseable {

    private static final ThreadLocal<String> NAME = new ThreadLocal<>();

    private final String previous;

    private AcquiringName(String previous) {
        this.previous = previous;
    }

    static AcquiringName set(String name) {
        AcquiringName scope = new AcquiringName(NAME.get());
        NAME.set(name);
        return scope;
    }

    /** The name of the annotated acquire under way on this thread, or {@code null}. */
    public static String current() {
        return NAME.get();
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
