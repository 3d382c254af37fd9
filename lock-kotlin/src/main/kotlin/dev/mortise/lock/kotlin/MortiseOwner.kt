package dev.mortise.lock.kotlin

import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * Pins the lock owner of every [withLock], [tryWithLock] and [withLocks] that runs in this coroutine
 * context and takes a key afresh: they all ask with [LockSpec.owner][dev.mortise.lock.LockSpec.owner]
 * `(id)`, as blocking code of the same client does with that owner id, so they nest in one another's
 * holds of a key even across unrelated coroutines. For sharing holds with code that is not a child
 * of the block (a worker that resumes a job started elsewhere), never for ordinary use: without it
 * each `withLock` that takes a key afresh is its own owner, and only the coroutine that took it and
 * its children nest in the hold (see [withLock]).
 *
 * Owner ids are local to one [LockClient][dev.mortise.lock.LockClient], as for `LockSpec.owner`.
 * Immutable; `MortiseOwner` elements are equal when their ids are.
 */
public class MortiseOwner(
    /** The owner id passed to `LockSpec.owner`; not blank. */
    public val id: String,
) : AbstractCoroutineContextElement(MortiseOwner) {

    init {
        require(id.isNotBlank()) { "A MortiseOwner id must not be blank: give the owner id to lock as, such as \"worker-7\"" }
    }

    /** The key of [MortiseOwner] in a [CoroutineContext]. */
    public companion object Key : CoroutineContext.Key<MortiseOwner>

    override fun equals(other: Any?): Boolean = other is MortiseOwner && other.id == id

    override fun hashCode(): Int = id.hashCode()

    override fun toString(): String = "MortiseOwner($id)"
}
