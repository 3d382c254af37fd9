package dev.mortise.lock.spring;

/**
 * What a {@link DistributedLock} method's call is told when its lock is lost while it runs
 * (the lease expired, the server said the hold is gone, an operator force-released it).
 */
public enum OnLost {

    /** Use {@code mortise.lock.on-lost} (default {@link #NOTIFY}). Only for the annotation. */
    DEFAULT,

    /**
     * The method runs on: the loss is logged and counted, a surrounding Spring transaction
     * is rolled back before it commits, and the call ends with
     * {@link dev.mortise.lock.LockLostException} when it returns.
     */
    NOTIFY,

    /**
     * As {@link #NOTIFY}, and the thread running a synchronous method is interrupted at
     * the loss (blocking I/O and waits that honour interrupts stop). For methods returning
     * {@code Mono}, {@code Flux} or {@code CompletionStage} there is no such thread: the
     * result is cancelled as with {@link #CANCEL}.
     */
    INTERRUPT,

    /**
     * The result ends at the loss with {@link dev.mortise.lock.LockLostException}: a
     * {@code Mono}/{@code Flux} signals it as an error (cancelling the method's publisher
     * upstream), a {@code CompletionStage} completes exceptionally with it (and the method's
     * own {@code CompletableFuture} is cancelled). A synchronous method has no result to
     * end early, so it is interrupted as with {@link #INTERRUPT}.
     */
    CANCEL
}
