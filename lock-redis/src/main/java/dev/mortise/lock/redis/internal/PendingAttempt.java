package dev.mortise.lock.redis.internal;

import java.util.concurrent.CompletableFuture;

/**
 * An attempt on its way ({@link Attempts#start}): the call, its reply to come (a script reply, or with
 * {@code waitForReplicas} a batch result), and {@link System#nanoTime()} just before it was sent, which
 * is where the validity of a grant it brings counts from.
 */
record PendingAttempt(ScriptCall call, CompletableFuture<?> reply, long requestedAt) {
}
