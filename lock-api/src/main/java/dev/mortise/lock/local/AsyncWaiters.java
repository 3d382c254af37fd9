package dev.mortise.lock.local;

import dev.mortise.lock.spi.AsyncWaits;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The native asynchronous wait of a {@link LocalLockServer}: a waiter queues in the key's record like
 * a thread in {@code acquire} does, with the same admission rules and place in line, but is served by
 * whoever changes the record (a release, an expiry found, a jump of the ticker), under the server's
 * lock, and by a timer when the holder's lease or its own wait runs out. Answers are completed on
 * {@link AsyncWaits#executor()}, never under the lock. Every method but {@link #acquire} expects
 * the server's lock held.
 */
final class AsyncWaiters {

    private final LocalLockServer server;
    /** Records whose asynchronous waiters look again before the server's lock is let go. */
    private final List<KeyRecord> woken = new ArrayList<>();

    AsyncWaiters(LocalLockServer server) {
        this.server = server;
    }

    CompletableFuture<Optional<Grant>> acquire(LockRequest request, Duration wait) {
        CompletableFuture<Optional<Grant>> answer = new CompletableFuture<>();
        long requestedAt = server.ticker().read();
        long deadline = Deadlines.after(System.nanoTime(), wait);
        AsyncWaiter waiter = null;
        server.lock().lock();
        try {
            server.checkUp(request.key());
            KeyRecord entry = server.entry(request.key());
            Attempt attempt = Admission.attempt(entry, request, requestedAt, null, server.ticker().read());
            if (attempt.isGranted() || deadline - System.nanoTime() <= 0) {
                answer(answer, attempt.grant());
                return answer;
            }
            waiter = new AsyncWaiter(request, entry, answer, deadline);
            entry.enqueue(waiter);
            schedule(waiter, attempt);
        } catch (RuntimeException e) {
            AsyncWaits.executor().execute(() -> answer.completeExceptionally(e));
            return answer;
        } finally {
            server.unlock();
        }
        AsyncWaiter queued = waiter;
        answer.whenComplete((grant, failure) -> withdraw(queued));
        return answer;
    }

    /** {@code entry} changed (see {@link KeyRecord#wake}): its asynchronous waiters look again before the lock is let go. */
    void woken(KeyRecord entry) {
        woken.add(entry);
    }

    /** Serves every record woken since the lock was taken, including those woken meanwhile. */
    void serveWoken() {
        while (!woken.isEmpty()) {
            KeyRecord entry = woken.remove(woken.size() - 1);
            entry.wokenPending = false;
            serve(entry);
        }
    }

    /** The record changed: its asynchronous waiters, in arrival order, look again. */
    private void serve(KeyRecord entry) {
        if (entry.asyncWaiters == 0) {
            return;
        }
        List<AsyncWaiter> waiting = new ArrayList<>(entry.asyncWaiters);
        for (KeyRecord.Waiter waiter : entry.waiters) {
            if (waiter instanceof AsyncWaiter async) {
                waiting.add(async);
            }
        }
        for (AsyncWaiter waiter : waiting) {
            look(waiter);
        }
    }

    /** One look at the key for {@code waiter}: granted, out of time, failed, or on to its next timer. */
    private void look(AsyncWaiter waiter) {
        if (waiter.done) {
            return;
        }
        if (server.isDown()) {
            finish(waiter);
            try {
                server.checkUp(waiter.request.key());
            } catch (RuntimeException e) {
                AsyncWaits.executor().execute(() -> waiter.answer.completeExceptionally(e));
            }
            return;
        }
        Attempt attempt = Admission.attempt(waiter.entry, waiter.request, server.ticker().read(), waiter,
                server.ticker().read());
        if (attempt.isGranted() || waiter.deadline - System.nanoTime() <= 0) {
            finish(waiter);
            answer(waiter.answer, attempt.grant());
        } else if (waiter.timer == null || waiter.timer.isDone()) {
            schedule(waiter, attempt);
        }
    }

    /** Looks again when the holder's lease ends (on the system ticker; a hand-moved one wakes by its jumps), or at the deadline. */
    private void schedule(AsyncWaiter waiter, Attempt attempt) {
        long left = Math.max(0, waiter.deadline - System.nanoTime());
        long holder = server.ticker().isSystem()
                ? attempt.holderRemaining().map(Duration::toNanos).orElse(left) + TimeUnit.MILLISECONDS.toNanos(1)
                : left;
        waiter.timer = AsyncWaits.scheduler().schedule(() -> AsyncWaits.executor().execute(() -> lookLater(waiter)),
                Math.min(left, holder), TimeUnit.NANOSECONDS);
    }

    private void lookLater(AsyncWaiter waiter) {
        server.lock().lock();
        try {
            waiter.timer = null;
            look(waiter);
        } finally {
            server.unlock();
        }
    }

    /** Out of the queue (which wakes whoever it held up), its timer stopped. */
    private void finish(AsyncWaiter waiter) {
        waiter.done = true;
        if (waiter.timer != null) {
            waiter.timer.cancel(false);
        }
        waiter.entry.dequeue(waiter);
    }

    /** The answer was completed by its caller (a cancel): leave the queue if still in it. */
    private void withdraw(AsyncWaiter waiter) {
        server.lock().lock();
        try {
            if (!waiter.done) {
                finish(waiter);
            }
        } finally {
            server.unlock();
        }
    }

    /** Completes off the lock; a grant the caller no longer takes is released. */
    private void answer(CompletableFuture<Optional<Grant>> answer, Optional<Grant> grant) {
        AsyncWaits.executor().execute(() -> {
            if (!answer.complete(grant) && grant.isPresent()) {
                server.release(grant.get());
            }
        });
    }
}
