package dev.mortise.lock.spring.coroutines

import dev.mortise.lock.DeadlockCycle
import dev.mortise.lock.LockClient
import dev.mortise.lock.LockDeadlockException
import dev.mortise.lock.LockMode
import dev.mortise.lock.local.LocalLockBackend
import dev.mortise.lock.spi.ForwardingLockBackend
import dev.mortise.lock.spi.Grant
import dev.mortise.lock.spi.LockRequest
import dev.mortise.lock.spring.DistributedLock
import dev.mortise.lock.spring.OnBusy
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.time.Duration
import java.time.Instant
import java.util.Optional
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/**
 * Issue 31: a [LockDeadlockException] that ends the asynchronous wait of a `suspend` method's acquire
 * is thrown to the caller as itself, under WAIT and under SKIP (never turned into SKIP's `null`). The
 * core does not watch asynchronous waits yet, so the in-process backend here ends every asynchronous
 * wait as a deadlock's victim would be ended.
 */
class SuspendDeadlockTests {

    /** The in-process backend, whose asynchronous waits all end as a deadlock's victim. */
    class VictimBackend : ForwardingLockBackend(LocalLockBackend.create()) {
        override fun name() = "victim"

        override fun acquireAsync(request: LockRequest, wait: Duration): CompletableFuture<Optional<Grant>> {
            val cycle = DeadlockCycle(listOf(
                DeadlockCycle.Member("0123456789abcdef", "other", request.key(), LockMode.EXCLUSIVE,
                    Duration.ofMillis(300), true),
                DeadlockCycle.Member("fedcba9876543210", request.key(), "other", LockMode.EXCLUSIVE,
                    Duration.ofMillis(500), false)), name(), Instant.now())
            return CompletableFuture.failedFuture(LockDeadlockException(request.key(), name(), cycle))
        }
    }

    /** Counts its runs in [runs] (a proxy's own fields are not the target's). */
    open class Accounts(private val runs: AtomicInteger) {

        @DistributedLock(key = "'account'", waitFor = "5s")
        open suspend fun post(): String? {
            runs.incrementAndGet()
            return "posted"
        }

        @DistributedLock(key = "'account'", onBusy = OnBusy.SKIP, waitFor = "5s")
        open suspend fun postOrSkip(): String? {
            runs.incrementAndGet()
            return "posted"
        }
    }

    private val runs = AtomicInteger()

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration::class.java))
        .withPropertyValues("mortise.lock.backend=victim")
        .withBean(VictimBackend::class.java, Supplier { VictimBackend() })
        .withBean(Accounts::class.java, Supplier { Accounts(runs) })

    @Test
    fun aSuspendMethodThrowsTheDeadlockUnderWaitAndSkip() {
        runner.run { context ->
            val accounts = context.getBean(Accounts::class.java)
            // Held by another instance (a client of its own on the server): the call's acquire waits on the server.
            LockClient.builder(context.getBean(VictimBackend::class.java)).build().use { elsewhere ->
                elsewhere.acquire("account", Duration.ofSeconds(5)).use {
                    for (call in listOf<suspend () -> String?>({ accounts.post() }, { accounts.postOrSkip() })) {
                        val failure = runBlocking { runCatching { call() }.exceptionOrNull() }
                        assertThat(failure).isInstanceOf(LockDeadlockException::class.java)
                            .hasMessageContaining("account")
                    }
                }
            }
            assertThat(runs.get()).`as`("the method never ran").isZero()
        }
    }
}
