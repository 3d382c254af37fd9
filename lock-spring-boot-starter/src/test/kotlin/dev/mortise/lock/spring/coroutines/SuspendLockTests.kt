package dev.mortise.lock.spring.coroutines

import dev.mortise.lock.LockClient
import dev.mortise.lock.LockEvent
import dev.mortise.lock.LockSpec
import dev.mortise.lock.redis.RedisLockBackend
import dev.mortise.lock.redis.internal.RedisKeys
import dev.mortise.lock.spring.DistributedLock
import dev.mortise.lock.spring.LeaderOnly
import dev.mortise.lock.spring.Leaderships
import dev.mortise.lock.spring.ReactiveLockContext
import dev.mortise.lock.spring.autoconfigure.LockClientBuilderCustomizer
import dev.mortise.lock.spring.autoconfigure.MortiseLeadershipAutoConfiguration
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration
import dev.mortise.lock.tck.server.RedisServer
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

/**
 * Issue 32: Kotlin `suspend` methods annotated with `@DistributedLock` and `@LeaderOnly`, through
 * Spring's coroutine support for AOP, on a real redis-server. The lock is taken on the async path,
 * held across the method's suspensions, and released exactly once when it returns or its coroutine
 * is cancelled; a cancel while waiting withdraws the request from the server.
 */
class SuspendLockTests {

    companion object {
        private val server = RedisServer()

        @JvmStatic
        @BeforeAll
        fun start() {
            server.start()
        }

        @JvmStatic
        @AfterAll
        fun stop() {
            server.close()
        }
    }

    /** Shared by the instances of one test, to see what each call did. */
    class Ledger {
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val calls = AtomicInteger()
        val events: MutableList<LockEvent> = CopyOnWriteArrayList()
    }

    open class Orders(private val ledger: Ledger) {
        /** Pays order [id] once [hold] completes, under the order's lock across the suspension. */
        @DistributedLock(key = "'order:' + #id", waitFor = "20s", lease = "5s")
        open suspend fun pay(id: String, hold: CompletableDeferred<Unit>): String {
            ledger.calls.incrementAndGet()
            val now = ledger.inside.incrementAndGet()
            ledger.maxInside.accumulateAndGet(now, ::maxOf)
            try {
                hold.await()
                delay(1) // resumes on another dispatch: the lock is held across suspensions
                return "paid $id"
            } finally {
                ledger.inside.decrementAndGet()
            }
        }
    }

    open class Billing(private val ledger: Ledger) {
        @LeaderOnly("billing")
        open suspend fun closeTheDay(): String {
            delay(1)
            ledger.calls.incrementAndGet()
            return "closed"
        }
    }

    private fun runner(ledger: Ledger) = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration::class.java,
            MortiseLockAutoConfiguration::class.java))
        .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.address=" + server.address())
        .withBean(Orders::class.java, Supplier { Orders(ledger) })
        .withBean(LockClientBuilderCustomizer::class.java, Supplier {
            LockClientBuilderCustomizer { _, builder -> builder.listener { ledger.events.add(it) } }
        })

    /** The starter on the in-process backend, for what needs no server. */
    private fun localRunner() = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration::class.java))
        .withPropertyValues("mortise.lock.backend=local")

    private fun keys(key: String) = RedisKeys.of("mortise", key)

    /** How many of [names] exist on the server. */
    private fun existing(vararg names: String): Int = server.command("EXISTS", *names).substring(1).toInt()

    private fun held(key: String) = existing(keys(key).lock()) == 1

    /** A waiting writer's marker or hand-off offer: a request of another owner waits on the server. */
    private fun waiting(key: String) = existing(keys(key).writers(), keys(key).handOffs()) > 0

    private suspend fun until(what: String, condition: () -> Boolean) {
        val met = withTimeoutOrNull(10_000) {
            while (!condition()) {
                delay(10)
            }
            true
        }
        assertThat(met).`as`("within 10 s: $what").isNotNull()
    }

    private fun otherInstance(): LockClient =
        LockClient.builder(RedisLockBackend.builder().address(server.address()).build()).build()

    @Test
    fun twoConcurrentCallsExcludeEachOtherOnTheKeyOfTheSuspendMethodsArgument() {
        val ledger = Ledger()
        val id = UUID.randomUUID().toString()
        runner(ledger).run { first ->
            runner(ledger).run { second ->
                runBlocking(Dispatchers.Default) {
                    val firstHold = CompletableDeferred<Unit>()
                    val a = async { first.getBean(Orders::class.java).pay(id, firstHold) }
                    until("the first call inside, its SpEL key held on the server") {
                        ledger.inside.get() == 1 && held("order:$id")
                    }
                    val b = async { second.getBean(Orders::class.java).pay(id, CompletableDeferred(Unit)) }
                    until("the second call waiting on the server") { waiting("order:$id") }
                    assertThat(ledger.calls.get()).`as`("the second call has not entered").isEqualTo(1)
                    firstHold.complete(Unit)
                    assertThat(a.await()).isEqualTo("paid $id")
                    assertThat(b.await()).isEqualTo("paid $id")
                }
                assertThat(ledger.maxInside.get()).`as`("calls inside at once").isEqualTo(1)
                assertThat(held("order:$id")).isFalse()
            }
        }
    }

    @Test
    fun cancellingACallWaitingForTheLockWithdrawsItsRequestFromTheServer() {
        val ledger = Ledger()
        val id = UUID.randomUUID().toString()
        otherInstance().use { other ->
            val holder = other.acquire(LockSpec.of("order:$id").waitFor(Duration.ofSeconds(5)))
            runner(ledger).run { context ->
                runBlocking(Dispatchers.Default) {
                    val call = launch { context.getBean(Orders::class.java).pay(id, CompletableDeferred(Unit)) }
                    until("the call waiting on the server") { waiting("order:$id") }
                    call.cancelAndJoin()
                    until("nothing of the cancelled request left on the server") { !waiting("order:$id") }
                }
                assertThat(ledger.calls.get()).`as`("a call cancelled while waiting never runs").isZero()
                holder.close()
                assertThat(held("order:$id")).`as`("the lock, free once its holder released it").isFalse()
                assertThat(context.getBean(LockClient::class.java).heldLocks()).isEmpty()
            }
        }
    }

    @Test
    fun cancellingACallHoldingTheLockReleasesItOnce() {
        val ledger = Ledger()
        val id = UUID.randomUUID().toString()
        runner(ledger).run { context ->
            runBlocking(Dispatchers.Default) {
                val call = launch(start = CoroutineStart.UNDISPATCHED) {
                    context.getBean(Orders::class.java).pay(id, CompletableDeferred())
                }
                until("the call inside, holding the lock") { ledger.inside.get() == 1 && held("order:$id") }
                call.cancelAndJoin()
                until("the lock released on the server") { !held("order:$id") }
                until("the release told") { ledger.events.any { it.type() == LockEvent.Type.RELEASED } }
            }
            assertThat(ledger.inside.get()).`as`("the method's body was cancelled").isZero()
            val mine = ledger.events.filter { it.key() == "order:$id" }
            assertThat(mine.map { it.type() }).`as`("acquired once, released once")
                .containsExactly(LockEvent.Type.ACQUIRED, LockEvent.Type.RELEASED)
            assertThat(context.getBean(LockClient::class.java).heldLocks()).isEmpty()
        }
    }

    open class Inner {
        @DistributedLock(key = "'order:' + #id", waitFor = "300ms")
        open suspend fun check(id: String): String {
            delay(1)
            val lease = ReactiveLockContext.current().awaitSingle() // the lease, in the coroutine's Reactor Context
            return "checked ${lease.key()}"
        }
    }

    open class Outer(private val inner: Inner) {
        @DistributedLock(key = "'order:' + #id", waitFor = "300ms")
        open suspend fun pay(id: String): String {
            delay(1)
            return inner.check(id) + ", paid"
        }
    }

    @Test
    fun aNestedSuspendCallOnTheSameKeyReEntersTheOuterCallsHold() {
        localRunner()
            .withBean(Inner::class.java)
            .withBean(Outer::class.java)
            .run { context ->
                val paid = runBlocking(Dispatchers.Default) { context.getBean(Outer::class.java).pay("7") }
                assertThat(paid).isEqualTo("checked order:7, paid")
                assertThat(context.getBean(LockClient::class.java).heldLocks()).isEmpty()
            }
    }

    open class FencedOrders {
        @DistributedLock(key = "'order:' + #id", fence = "'orders'")
        open suspend fun pay(id: String): String = "paid $id"
    }

    @Test
    fun aFenceOnASuspendMethodFailsStartUp() {
        localRunner()
            .withBean(FencedOrders::class.java)
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause().hasMessageContaining("(a Kotlin suspend method)")
            }
    }

    @Test
    fun leaderOnlySuspendMethodRunsOnTheLeaderOnly() {
        val ledger = Ledger()
        val key = "leader:billing:" + UUID.randomUUID()
        val leaders = ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration::class.java,
                MortiseLockAutoConfiguration::class.java, MortiseLeadershipAutoConfiguration::class.java))
            .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.address=" + server.address(),
                "mortise.lock.default-lease=2s", "mortise.lock.leadership.billing.key=$key")
            .withBean(Billing::class.java, Supplier { Billing(ledger) })
        leaders.run { first ->
            leaders.run { second ->
                runBlocking(Dispatchers.Default) {
                    val one = first.getBean(Leaderships::class.java).get("billing")
                    val two = second.getBean(Leaderships::class.java).get("billing")
                    until("a leader") { one.isLeader || two.isLeader }
                    val (leader, follower) = if (one.isLeader) first to second else second to first
                    assertThat(follower.getBean(Billing::class.java).closeTheDay())
                        .`as`("skipped where this instance does not lead: null").isNull()
                    assertThat(ledger.calls.get()).isZero()
                    assertThat(leader.getBean(Billing::class.java).closeTheDay()).isEqualTo("closed")
                    assertThat(ledger.calls.get()).isEqualTo(1)
                }
            }
        }
    }
}
