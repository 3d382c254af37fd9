package dev.mortise.lock.kotlin

import dev.mortise.lock.LockTimeoutException
import dev.mortise.lock.MultiLockSpec
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.time.Duration
import java.util.concurrent.TimeUnit

/** withLocks on the in-process backend: canonical order, all or none, nesting per key. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WithLocksTest {

    private val locks = LocalLocks()
    private val long = Duration.ofSeconds(60)

    @AfterEach
    fun close() = locks.close()

    @Test
    fun `parts are taken and handed over in canonical order`(): Unit = runBlocking {
        val keys = locks.a.withLocks(listOf("m:c", "m:a", "m:b", "m:a"), long) { leases ->
            assertThat(leases).allMatch { it.isValid }
            leases.map { it.key() }
        }
        assertThat(keys).containsExactly("m:a", "m:b", "m:c")
        listOf("m:a", "m:b", "m:c").forEach { assertThat(locks.server.isHeld(it)).isFalse() }
    }

    @Test
    fun `a part not granted in time releases the parts already taken`(): Unit = runBlocking {
        locks.b.acquire("m:b", long).use {
            var ran = false
            assertThatThrownBy {
                runBlocking { locks.a.withLocks(listOf("m:c", "m:b", "m:a"), Duration.ofMillis(30)) { ran = true } }
            }.isInstanceOf(LockTimeoutException::class.java)
            assertThat(ran).isFalse()
            assertThat(locks.server.isHeld("m:a")).isFalse()
            assertThat(locks.server.isHeld("m:c")).isFalse()
            assertThat(locks.a.inspect("m:b").waiters().asInt).isZero()
        }
    }

    @Test
    fun `a part held by an enclosing block nests, the others are taken afresh`(): Unit = runBlocking {
        locks.a.withLock("m:a", long) { outer ->
            locks.a.withLocks(MultiLockSpec.of(listOf("m:a", "m:b")).waitFor(long)) { (a, b) ->
                assertThat(a.fencingToken()).isEqualTo(outer.fencingToken())
                assertThat(a.holdCount()).isEqualTo(2)
                assertThat(b.holdCount()).isEqualTo(1)
            }
            assertThat(outer.isValid).isTrue()
        }
    }

    @Test
    fun `an empty key list is refused`(): Unit = runBlocking {
        assertThatThrownBy { runBlocking { locks.a.withLocks(listOf(), long) { } } }
            .isInstanceOf(IllegalArgumentException::class.java)
    }
}
