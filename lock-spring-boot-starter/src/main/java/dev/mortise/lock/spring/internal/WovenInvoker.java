package dev.mortise.lock.spring.internal;

/**
 * The engine that the woven {@code DistributedLockAspect} runs. AspectJ, not Spring, creates that
 * aspect (one instance per class loader), so the auto-configuration hands the engine over here
 * ({@code mortise.lock.mode=aspectj}) and the aspect reads it at each call: the aspect's public
 * type then names nothing of the engine. Thread-safe.
 */
public final class WovenInvoker {

    private static volatile LockInvoker current;

    private WovenInvoker() {
    }

    /** Makes {@code invoker} the engine of the woven aspect; {@code null} leaves it without one. */
    public static void use(LockInvoker invoker) {
        current = invoker;
    }

    /** The engine of the woven aspect, or {@code null} if none was handed over. */
    public static LockInvoker current() {
        return current;
    }
}
