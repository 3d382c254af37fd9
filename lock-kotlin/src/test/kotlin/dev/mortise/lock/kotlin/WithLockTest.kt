package dev.mortise.lock.kotlin

import dev.mortise.lock.LockSpec
import dev.mortise.lock.LockTimeoutException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.time.Duration
import java.util.concurrent.TimeUnit

/** withLock and tryWithLock on the in-process backend: exclusion, nesting by coroutine, waiting, timeouts. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WithLockTest {

    private val locks = LocalLocks()
    private val long = Duration.ofSeconds(60)

    @AfterEach
    fun close() = locks.close()

    @Test
    fun `many coroutines on two clients never overlap`(): Unit = runBlocking(Dispatchers.Default) {
        assertThat(exclusionRound(200, "counter", long, listOf(locks.a, locks.b))).isEqualTo(Exclusion(0, 200))
        assertThat(locks.server.records("counter")).isZero()
    }

    @Test
    fun `a withLock inside a withLock of the same key in the same coroutine nests`(): Unit = runBlocking {
        locks.a.withLock("nest", long) { outer ->
            locks.a.withLock("nest", Duration.ZERO) { inner ->
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken())
                assertThat(inner.holdCount()).isEqualTo(2)
            }
            assertThat(outer.isValid).isTrue()
            assertThat(outer.holdCount()).isEqualTo(1)
        }
        assertThat(locks.server.isHeld("nest")).isFalse()
    }

    @Test
    fun `a child coroutine on another thread nests in its parent's hold`(): Unit = runBlocking {
        locks.a.withLock("nest", long) { outer ->
            val token = coroutineScope {
                async(Dispatchers.Default) {
                    locks.a.withLock("other", long) { // another key between: the outer hold is still known
                        locks.a.withLock("nest", Duration.ZERO) { it.fencingToken() }
                    }
                }.await()
            }
            assertThat(token).isEqualTo(outer.fencingToken())
        }
        assertThat(locks.server.isHeld("nest")).isFalse()
    }

    @Test
    fun `a coroutine that is not a child waits, on the same client`(): Unit = runBlocking {
        val entered = CompletableDeferred<Unit>()
        val leave = CompletableDeferred<Unit>()
        val holder = launch { locks.a.withLock("k", long) { entered.complete(Unit); leave.await() } }
        entered.await()
        assertThat(locks.a.tryWithLock("k", Duration.ZERO) { "ran" }).isNull()
        val waiter = async(Dispatchers.Default) { locks.a.withLock("k", long) { "ran" } }
        yield()
        assertThat(waiter.isCompleted).isFalse()
        leave.complete(Unit)
        assertThat(waiter.await()).isEqualTo("ran")
        holder.join()
    }

    @Test
    fun `two children of a block exclude each other on a key the block does not hold`(): Unit = runBlocking {
        locks.a.withLock("parent", long) {
            val entered = CompletableDeferred<Unit>()
            val leave = CompletableDeferred<Unit>()
            coroutineScope {
                launch { locks.a.withLock("child", long) { entered.complete(Unit); leave.await() } }
                entered.await()
                assertThat(locks.a.tryWithLock("child", Duration.ZERO) { "ran" }).isNull()
                leave.complete(Unit)
            }
        }
    }

    @Test
    fun `a pinned MortiseOwner shares holds with blocking code of that owner`(): Unit = runBlocking {
        withContext(MortiseOwner("worker-7")) {
            locks.a.withLock("pinned", long) { outer ->
                locks.a.acquire(LockSpec.of("pinned").owner("worker-7")).use { inner ->
                    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken())
                }
            }
        }
    }

    @Test
    fun `a child that outlives the block takes the key afresh`(): Unit = runBlocking {
        val lease = CompletableDeferred<Pair<Long, Int>>()
        val firstToken = locks.a.withLock("outlive", long) { outer ->
            launch { // runBlocking's scope: may start while the block's lease is being closed, so it waits
                locks.a.withLock("outlive", long) { lease.complete(it.fencingToken() to it.holdCount()) }
            }
            outer.fencingToken()
        }
        val (token, holds) = lease.await()
        assertThat(token).isGreaterThan(firstToken)
        assertThat(holds).isEqualTo(1)
    }

    @Test
    fun `timeouts give null from tryWithLock and LockTimeoutException from withLock, leaving no waiter`(): Unit = runBlocking {
        locks.b.acquire("busy", long).use {
            var ran = false
            assertThat(locks.a.tryWithLock("busy", Duration.ofMillis(20)) { ran = true }).isNull()
            assertThatThrownBy { runBlocking { locks.a.withLock("busy", Duration.ofMillis(20)) { ran = true } } }
                .isInstanceOf(LockTimeoutException::class.java)
            assertThat(ran).isFalse()
            assertThat(locks.a.inspect("busy").waiters().asInt).isZero()
        }
        assertThat(locks.server.records("busy")).isZero()
    }

    @Test
    fun `the block's exception reaches the caller and the lease is closed`(): Unit = runBlocking {
        assertThatThrownBy { runBlocking { locks.a.withLock("fails", long) { error("boom") } } }
            .isInstanceOf(IllegalStateException::class.java).hasMessage("boom")
        assertThat(locks.server.isHeld("fails")).isFalse()
    }
}
