@file:JvmName("WithLocks")

package dev.mortise.lock.kotlin

import dev.mortise.lock.LockClient
import dev.mortise.lock.LockLease
import dev.mortise.lock.LockSpec
import dev.mortise.lock.MultiLockSpec
import java.time.Duration

/**
 * Acquires every part of [spec], or none, without holding a thread while it waits; runs [block]
 * with the leases (in [MultiLockSpec.parts]' canonical order), closes them, and returns what the
 * block returned.
 *
 * - **One by one, in canonical order.** There is no asynchronous multi-key acquire yet: the parts
 *   are taken one after the other with [LockClient.acquireAsync], in ascending key order as
 *   [LockClient.acquireAll] takes them (so overlapping requests never deadlock), each waiting for
 *   what is left of the spec's one wait. Unlike `acquireAll` there is no batched fast path: N free
 *   keys cost N round trips. The blocking `acquireAll` is not used because it parks the calling
 *   thread for the whole wait (run on `Dispatchers.IO` it would hold a thread per waiter, and
 *   cancellation would have to interrupt it).
 * - **All or none.** If a part is not granted in time, the backend fails, or the coroutine is
 *   cancelled, the parts already taken are closed (in reverse order) before the exception goes
 *   on: nothing is held. The parts are closed, in reverse order and exactly once, however the
 *   block ends, as [withLock] closes its lease.
 * - **Owners and reentrancy** are those of [withLock], per key: a part an enclosing block of this
 *   coroutine or a parent holds nests in that hold; the others are taken afresh. The spec's lease
 *   and owner apply to every part.
 *
 * @throws dev.mortise.lock.LockTimeoutException if not every part was granted within the wait (none is held)
 * @throws dev.mortise.lock.LockBackendException if the backend failed (the parts taken were closed)
 * @throws IllegalArgumentException if the spec has no part, or a bad key, wait, lease or owner
 */
public suspend fun <T> LockClient.withLocks(spec: MultiLockSpec, block: suspend (List<LockLease>) -> T): T {
    require(spec.keys().isNotEmpty()) { "A multi-key lock needs at least one key: $spec" }
    val scope = LeaseScope.current()
    val leases = acquireInOrder(scope, spec)
    return scope.run(leases, block)
}

/**
 * As [withLocks] with `MultiLockSpec.of(keys).waitFor(wait)`: exclusive holds with the client's
 * default lease, renewed until the block ends.
 */
public suspend fun <T> LockClient.withLocks(
    keys: Collection<String>,
    wait: Duration,
    block: suspend (List<LockLease>) -> T,
): T = withLocks(MultiLockSpec.of(keys).waitFor(wait), block)

private suspend fun LockClient.acquireInOrder(scope: LeaseScope, spec: MultiLockSpec): List<LockLease> {
    val wait: Duration? = spec.waitTime()
    // A null or negative wait is passed on as it is, for the client to refuse with its own message.
    val deadline = if (wait == null || wait.isNegative) null else System.nanoTime() + wait.toNanos()
    val taken = ArrayList<LockLease>()
    try {
        for (part in spec.parts()) {
            val left = if (deadline == null) wait else Duration.ofNanos(maxOf(0L, deadline - System.nanoTime()))
            taken += awaitGrant(acquireAsync(scope.owned(partSpec(part, spec, left)))) { listOf(it) }
        }
    } catch (e: Throwable) {
        closeAll(taken)?.let(e::addSuppressed)
        throw e
    }
    return taken
}

private fun partSpec(part: LockSpec, spec: MultiLockSpec, wait: Duration?): LockSpec {
    var single = part.waitFor(wait)
    spec.explicitLease()?.let { single = single.lease(it) }
    spec.explicitOwner()?.let { single = single.owner(it) }
    return single
}
