@file:JvmName("WithLock")

package dev.mortise.lock.kotlin

import dev.mortise.lock.LockClient
import dev.mortise.lock.LockLease
import dev.mortise.lock.LockSpec
import java.time.Duration
import java.util.Optional

/**
 * Acquires [spec] without holding a thread while it waits, runs [block] with the lease, closes the
 * lease, and returns what the block returned.
 *
 * - **Waiting** suspends on [LockClient.acquireAsync]: the coroutine holds no thread (how the
 *   backend waits at its server is [LockClient.acquireAsync]'s to say: with no thread on the
 *   in-process backend, on shared pool threads elsewhere). Cancelling the coroutine while it waits
 *   cancels the request: the client withdraws it, and a grant racing the cancel is released,
 *   never leaked.
 * - **Closing.** The lease is closed exactly once however the block ends: returning, throwing,
 *   or cancelled. The close is a blocking release on the server (the lease has no asynchronous
 *   close), run on `Dispatchers.IO` and not cancellable. The block's own exception (a
 *   `CancellationException` included) reaches the caller unchanged, a failed close suppressed
 *   into it; after a block that returned, a failed close is thrown
 *   ([dev.mortise.lock.LockLostException] if the hold was lost while the block ran, as
 *   [LockClient.call] does, or [dev.mortise.lock.LockBackendException]).
 * - **Reentrancy follows coroutines, not threads** (a coroutine changes threads across
 *   suspensions). A `withLock` of a key that an enclosing `withLock` block of the same coroutine,
 *   or of a parent, holds nests in that hold at once (same fencing token, no server call): the
 *   block runs with the key and its owner id in its coroutine context, which children inherit.
 *   Every other `withLock` takes the key afresh as an owner of its own (a new id, unless
 *   [spec] names an owner or the context has a [MortiseOwner]), so a coroutine that is not a
 *   child waits like any other caller, and so do two children of one block asking for a key the
 *   block does not hold: they exclude each other.
 * - **Children that outlive the block** (launched into a scope outside it) must not use the lease
 *   after the block returns: it is closed ([LockLease.isValid] is false, `ensureValid` throws).
 *   Their own `withLock` of the key then takes it afresh. Children launched inside the block
 *   (`coroutineScope { launch { ... } }`) end before it does, as structured concurrency has it.
 * - **A lost hold** is not noticed for the block: check [LockLease.isValid] or call
 *   [LockLease.ensureValid] before an irreversible step, pass [LockLease.fencingToken] to the
 *   storage, or register [LockLease.onLost].
 *
 * @throws dev.mortise.lock.LockTimeoutException if not granted within the spec's wait
 * @throws dev.mortise.lock.LockBackendException if the backend failed
 * @throws IllegalArgumentException for a bad key, wait, lease or owner in [spec]
 * @throws IllegalStateException if the client is closed, or for an upgrade (an exclusive request
 *   inside a shared hold of the same key)
 */
public suspend fun <T> LockClient.withLock(spec: LockSpec, block: suspend (LockLease) -> T): T {
    val scope = LeaseScope.current()
    val lease = awaitGrant(acquireAsync(scope.owned(spec))) { listOf(it) }
    return scope.run(listOf(lease)) { block(it[0]) }
}

/**
 * As [withLock] with `LockSpec.of(key).waitFor(wait)`: an exclusive hold with the client's default
 * lease, renewed until the block ends.
 *
 * @throws dev.mortise.lock.LockTimeoutException if not granted within [wait]
 */
public suspend fun <T> LockClient.withLock(key: String, wait: Duration, block: suspend (LockLease) -> T): T =
    withLock(LockSpec.of(key).waitFor(wait), block)

/**
 * As [withLock], but when [spec] is not granted within its wait (for a zero wait: the key is
 * busy) the block does not run and the result is `null`. A block that returns `null` also gives
 * `null`: tell them apart in the block if it matters. Failures other than the wait running out
 * are thrown as by [withLock].
 */
public suspend fun <T> LockClient.tryWithLock(spec: LockSpec, block: suspend (LockLease) -> T): T? {
    val scope = LeaseScope.current()
    val granted: Optional<LockLease> =
        awaitGrant(tryAcquireAsync(scope.owned(spec))) { it.map { lease -> listOf(lease) }.orElse(listOf()) }
    if (granted.isEmpty) {
        return null
    }
    return scope.run(listOf(granted.get())) { block(it[0]) }
}

/** As [tryWithLock] with `LockSpec.of(key).waitFor(wait)`; `null` when not granted within [wait]. */
public suspend fun <T> LockClient.tryWithLock(key: String, wait: Duration, block: suspend (LockLease) -> T): T? =
    tryWithLock(LockSpec.of(key).waitFor(wait), block)
