package dev.mortise.lock.kotlin

import dev.mortise.lock.LockEvent
import dev.mortise.lock.LockLease
import dev.mortise.lock.LockLostException
import dev.mortise.lock.LostReason
import dev.mortise.lock.LockSpec
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.time.Duration
import java.util.concurrent.TimeUnit

/** Cancellation on the in-process backend: while waiting, in the block, and racing a grant. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CancellationTest {

    private val locks = LocalLocks()
    private val long = Duration.ofSeconds(60)

    @AfterEach
    fun close() = locks.close()

    @Test
    fun `cancelling a waiting coroutine withdraws its request`(): Unit = runBlocking {
        val held = locks.a.acquire("k", long)
        var ran = false
        val waiter = launch(Dispatchers.Default) { locks.b.withLock("k", long) { ran = true } }
        locks.awaitWaiters("k", 1)
        waiter.cancelAndJoin()
        assertThat(locks.a.inspect("k").waiters().asInt).isZero()
        held.close()
        val seen = locks.a.inspect("k")
        assertThat(seen.held()).isFalse()
        assertThat(seen.waiters().asInt).isZero()
        assertThat(ran).isFalse()
        assertThat(locks.count(locks.b, LockEvent.Type.ACQUIRED)).isZero()
    }

    @Test
    fun `cancelling the block closes the lease exactly once`(): Unit = runBlocking {
        val lease = CompletableDeferred<LockLease>()
        val job = launch(Dispatchers.Default) {
            locks.a.withLock("k", long) {
                lease.complete(it)
                awaitCancellation()
            }
        }
        val granted = lease.await()
        job.cancelAndJoin()
        assertThat(granted.isValid).isFalse()
        assertThat(locks.count(locks.a, LockEvent.Type.RELEASED)).isEqualTo(1)
        assertThat(locks.server.isHeld("k")).isFalse()
    }

    @Test
    fun `cancelling the block of a withLocks closes every part once`(): Unit = runBlocking {
        val started = CompletableDeferred<Unit>()
        val job = launch(Dispatchers.Default) {
            locks.a.withLocks(listOf("x", "y", "z"), long) {
                started.complete(Unit)
                awaitCancellation()
            }
        }
        started.await()
        job.cancelAndJoin()
        assertThat(locks.count(locks.a, LockEvent.Type.RELEASED)).isEqualTo(3)
        listOf("x", "y", "z").forEach { assertThat(locks.server.records(it)).isZero() }
    }

    @Test
    fun `a grant racing a cancel is never leaked`(): Unit = runBlocking(Dispatchers.Default) {
        repeat(300) { i ->
            val held = locks.a.acquire(LockSpec.of("race").waitFor(long))
            val waiter = launch(start = CoroutineStart.UNDISPATCHED) { locks.b.withLock("race", long) { yield() } }
            if (i % 3 != 0) {
                locks.awaitWaiters("race", 1) // the request is at the server; else it may still be on its way
            }
            // the grant (the holder's release hands the key to the waiter) and the cancel race
            joinAll(launch { held.close() }, launch { repeat(i % 4) { yield() }; waiter.cancel() })
            waiter.join()
            awaitFree() // a leaked grant stays held (renewed): the class's timeout fails the test
        }
        while (locks.count(locks.b, LockEvent.Type.RELEASED) != locks.count(locks.b, LockEvent.Type.ACQUIRED)) {
            delay(1) // events of a grant that lost to the cancel may trail its release
        }
        val seen = locks.b.inspect("race")
        assertThat(seen.held()).isFalse()
        assertThat(seen.waiters().asInt).isZero()
        assertThat(locks.b.heldLocks()).isEmpty()
        locks.a.acquire("race", Duration.ZERO).close() // the key is free for anyone
    }

    /** Waits until the race key is free with nobody waiting: a grant that lost to a cancel is released on a pool thread. */
    private suspend fun awaitFree() {
        while (locks.server.records("race") != 0) {
            delay(1)
        }
    }

    @Test
    fun `cancelOnLost cancels the block and withLock throws LockLostException`(): Unit = runBlocking {
        val started = CompletableDeferred<Unit>()
        val outcome = async(Dispatchers.Default) {
            runCatching {
                locks.a.withLock("lost", long) { lease ->
                    lease.cancelOnLost()
                    started.complete(Unit)
                    awaitCancellation()
                }
            }
        }
        started.await()
        assertThat(locks.a.forceRelease("lost")).isTrue()
        val failure = outcome.await().exceptionOrNull()
        assertThat(failure).isInstanceOf(LockLostException::class.java)
        assertThat((failure as LockLostException).reason()).isEqualTo(LostReason.FORCE_RELEASED)
        assertThat(outcome.isCancelled).isFalse()
        assertThat(locks.server.isHeld("lost")).isFalse()
    }
}
