@file:JvmName("CancelOnLost")

package dev.mortise.lock.kotlin

import dev.mortise.lock.LockLease
import dev.mortise.lock.LockLostEvent
import dev.mortise.lock.LockLostException
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.job
import java.util.concurrent.CancellationException

/**
 * Cancels the calling coroutine when this lease is lost while open: called first thing in a
 * [withLock], [tryWithLock] or [withLocks] block, it cancels the block at its next suspension
 * point, and the `withLock` call then throws [LockLostException] (with the loss's reason; the
 * caller's own coroutine is not cancelled). Code between suspension points runs on: check
 * [LockLease.ensureValid] before an irreversible step all the same. A loss after the block ended
 * (the lease closed) cancels nothing. Registers one [LockLease.onLost] listener.
 *
 * @return this lease
 */
public suspend fun LockLease.cancelOnLost(): LockLease {
    val job = currentCoroutineContext().job
    onLost { job.cancel(LeaseLostCancellation(it)) }
    return this
}

/** The cancellation [cancelOnLost] cancels a block with; the lock block turns it into [LockLostException]. */
internal class LeaseLostCancellation(private val event: LockLostEvent) :
    CancellationException("Lock '${event.key()}' on '${event.backend()}' was lost (${event.reason()}); its block was cancelled") {

    fun toLockLost(): LockLostException =
        LockLostException(message, event.key(), event.backend(), event.reason(), event.cause()).also { it.addSuppressed(this) }
}
