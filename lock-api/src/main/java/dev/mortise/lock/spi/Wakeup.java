package dev.mortise.lock.spi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A wake-up for {@link WaitSteps}: a binary signal, like a semaphore of one permit, whose pending
 * state is a future a {@link WaitStep#sleep} can wait on. {@link #signal()} (a release message, a
 * watch event, a NOTIFY) sets it; {@link #take()} clears it, saying whether it was set; {@link #future()}
 * is complete while it is set. Thread-safe; signals from any thread.
 */
public final class Wakeup {

    private final AtomicReference<CompletableFuture<Void>> pending = new AtomicReference<>(new CompletableFuture<>());

    /** Sets the signal (again: a no-op while it is set). */
    public void signal() {
        pending.get().complete(null);
    }

    /** Clears the signal. @return whether it was set */
    public boolean take() {
        CompletableFuture<Void> current = pending.get();
        return current.isDone() && pending.compareAndSet(current, new CompletableFuture<>());
    }

    /** Complete once the signal is set: the wake of a sleep that began after the last {@link #take()}. */
    public CompletableFuture<Void> future() {
        return pending.get();
    }
}
