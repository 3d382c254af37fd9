package dev.mortise.lock.spring;

/** What a {@link DistributedLock} method does when another owner holds its lock. */
public enum OnBusy {

    /**
     * Wait up to {@link DistributedLock#waitFor()}; then throw
     * {@link dev.mortise.lock.LockTimeoutException} without running the method.
     */
    WAIT,

    /**
     * Do not run the method (after waiting up to {@link DistributedLock#waitFor()}, by
     * default not at all) and return "nothing": {@code null}, an empty {@code Optional},
     * an empty {@code Mono}/{@code Flux}, or a {@code CompletableFuture} completed with
     * {@code null}. Primitive return types are not allowed with SKIP.
     */
    SKIP,

    /** Do not wait: throw {@link LockBusyException} at once without running the method. */
    FAIL
}
