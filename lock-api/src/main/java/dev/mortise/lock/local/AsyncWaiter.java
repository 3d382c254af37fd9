package dev.mortise.lock.local;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * A waiting request with no thread behind it: its place in the key's queue, its answer, its
 * deadline (real time, as every wait) and the timer that makes it look again when the holder's
 * lease ends or its wait runs out. Guarded by the server's lock.
 */
final class AsyncWaiter extends KeyRecord.Waiter {

    final LockRequest request;
    final KeyRecord entry;
    final CompletableFuture<Optional<Grant>> answer;
    final long deadline;
    /** Whether it left the queue (granted, timed out, failed or withdrawn). */
    boolean done;
    Future<?> timer;

    AsyncWaiter(LockRequest request, KeyRecord entry, CompletableFuture<Optional<Grant>> answer, long deadline) {
        super(request.shared());
        this.request = request;
        this.entry = entry;
        this.answer = answer;
        this.deadline = deadline;
    }
}
