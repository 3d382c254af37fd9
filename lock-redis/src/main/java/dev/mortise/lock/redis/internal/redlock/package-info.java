/**
 * Redlock's rounds over independent masters: <b>internal</b>, no compatibility promise. The public
 * front is {@link dev.mortise.lock.redis.RedlockBackend}; here are the nodes and how a round reaches
 * them ({@link dev.mortise.lock.redis.internal.redlock.RedlockNodes},
 * {@link dev.mortise.lock.redis.internal.redlock.NodeReplies}), the two-round attempt
 * ({@link dev.mortise.lock.redis.internal.redlock.RedlockAttempts}), the polling wait as {@code WaitSteps}
 * ({@link dev.mortise.lock.redis.internal.redlock.RedlockWait}), renewal and release
 * ({@link dev.mortise.lock.redis.internal.redlock.RedlockHolds}), the majority read
 * ({@link dev.mortise.lock.redis.internal.redlock.RedlockInspection}) and deadlock detection's wait
 * records, counted where a majority agrees ({@link dev.mortise.lock.redis.internal.redlock.RedlockWaitRecords}).
 * Each node is one deployment's {@link dev.mortise.lock.redis.internal.LockCommands}.
 */
package dev.mortise.lock.redis.internal.redlock;
