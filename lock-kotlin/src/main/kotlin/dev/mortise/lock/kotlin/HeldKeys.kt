package dev.mortise.lock.kotlin

import java.util.UUID
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * The keys the enclosing lock blocks of a coroutine hold, with the owner id each was taken as: the
 * coroutine context element that makes reentrancy follow coroutines rather than threads. Children
 * inherit it, so a child's request for a key an ancestor's block holds nests in that hold; a
 * coroutine that is not a child has no entry for the key and waits like anyone else.
 *
 * Immutable: a block adds its keys to a copy. Internal to this module.
 */
internal class HeldKeys private constructor(private val holds: Map<String, Hold>) :
    AbstractCoroutineContextElement(HeldKeys) {

    companion object Key : CoroutineContext.Key<HeldKeys> {
        val NONE: HeldKeys = HeldKeys(emptyMap())
    }

    /**
     * One block's hold of a key. [open] turns false when the block closes its lease, so a child
     * launched into an outer scope that outlives the block does not count on a hold that is gone.
     */
    class Hold(val owner: String) {
        @Volatile
        var open: Boolean = true
    }

    /** This set plus [added] (a key held again by an inner block keeps the inner entry). */
    fun with(added: Map<String, Hold>): HeldKeys = HeldKeys(holds + added)

    /** The owner id to ask for [key] as: the enclosing open hold's, else the given or pinned one, else a new id. */
    fun ownerFor(key: String, explicit: String?, pinned: MortiseOwner?): String =
        explicit ?: holds[key]?.takeIf { it.open }?.owner ?: pinned?.id ?: newOwnerId()

    private fun newOwnerId(): String = "coroutine-" + UUID.randomUUID()

    override fun toString(): String = "HeldKeys(${holds.filterValues { it.open }.keys})"
}
