package dev.mortise.lock.kotlin

import dev.mortise.lock.LockLease
import dev.mortise.lock.LockSpec
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.isActive
import kotlinx.coroutines.withContext

/**
 * One lock block's view of its coroutine context: picks the owner id each key is asked for as
 * ([HeldKeys.ownerFor]), then runs the block with those keys added to the context and closes the
 * leases once. Used by one block on one coroutine; not thread-safe.
 */
internal class LeaseScope private constructor(private val held: HeldKeys, private val pinned: MortiseOwner?) {

    private val taken = LinkedHashMap<String, HeldKeys.Hold>()

    companion object {
        /** The scope of the calling coroutine. */
        suspend fun current(): LeaseScope {
            val context = currentCoroutineContext()
            return LeaseScope(context[HeldKeys] ?: HeldKeys.NONE, context[MortiseOwner])
        }
    }

    /** [spec] with the owner it is asked as in this coroutine; remembers the key for the block's context. */
    fun owned(spec: LockSpec): LockSpec {
        val key = spec.key() ?: return spec // the client refuses a null key with its own message
        val hold = taken.getOrPut(key) { HeldKeys.Hold(held.ownerFor(key, spec.explicitOwner(), pinned)) }
        return spec.owner(hold.owner)
    }

    /**
     * Runs [block] with the remembered keys in its context, then closes [leases] once in reverse
     * order: a block's exception goes on with a failed close suppressed into it; after a block
     * that returned, a failed close is thrown.
     */
    suspend fun <T> run(leases: List<LockLease>, block: suspend (List<LockLease>) -> T): T {
        val result = try {
            withContext(held.with(taken)) { block(leases) }
        } catch (e: Throwable) {
            end(leases)?.let(e::addSuppressed)
            // cancelOnLost cancelled the block, not the caller: the caller learns of the loss
            if (e is LeaseLostCancellation && currentCoroutineContext().isActive) throw e.toLockLost()
            throw e
        }
        end(leases)?.let { throw it }
        return result
    }

    private suspend fun end(leases: List<LockLease>): Throwable? {
        taken.values.forEach { it.open = false }
        return closeAll(leases)
    }
}
