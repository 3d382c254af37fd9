package dev.mortise.lock.kotlin

import dev.mortise.lock.LockLease
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext
import java.util.concurrent.CompletableFuture

/**
 * Suspends until [future] completes and returns its value. Cancelling the coroutine cancels the
 * future, which withdraws the request (the client releases a grant that loses to the cancel).
 *
 * A grant that completes the future first and then loses to the coroutine's cancellation is
 * dropped by `await` (the prompt cancellation guarantee: a cancelled coroutine never resumes with
 * the value); nobody else holds it, so its leases are closed here, once, before the exception
 * goes on. [leasesOf] lists the leases in the value (none for an empty result).
 */
internal suspend fun <V> awaitGrant(future: CompletableFuture<V>, leasesOf: (V) -> List<LockLease>): V {
    try {
        return future.await()
    } catch (e: Throwable) {
        future.cancel(false)
        if (future.isDone && !future.isCompletedExceptionally) {
            leasesOf(future.getNow(null)).forEach { closeInto(it, e) }
        }
        throw e
    }
}

/**
 * Closes [leases] in reverse order on [Dispatchers.IO] (closing is a blocking release on the
 * server), even when the coroutine is cancelled, and returns the first failure (the others
 * suppressed into it), or null.
 */
internal suspend fun closeAll(leases: List<LockLease>): Throwable? = withContext(NonCancellable + Dispatchers.IO) {
    var failure: Throwable? = null
    for (lease in leases.asReversed()) {
        try {
            lease.close()
        } catch (e: Throwable) {
            failure?.addSuppressed(e) ?: run { failure = e }
        }
    }
    failure
}

/** Closes [lease] without suspending, a failure suppressed into [into]: for the cancellation path. */
internal fun closeInto(lease: LockLease, into: Throwable) {
    try {
        lease.close()
    } catch (e: Throwable) {
        into.addSuppressed(e)
    }
}
