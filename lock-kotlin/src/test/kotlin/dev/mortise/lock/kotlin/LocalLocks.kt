package dev.mortise.lock.kotlin

import dev.mortise.lock.LockClient
import dev.mortise.lock.LockEvent
import dev.mortise.lock.local.LocalLockBackend
import dev.mortise.lock.local.LocalLockServer
import kotlinx.coroutines.delay
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * Two clients of one in-process lock server, as two processes would be, each counting the events
 * its listener sees by type. Close it after the test.
 */
class LocalLocks : AutoCloseable {

    val server = LocalLockServer("kotlin-test")
    private val aCounts = Counts()
    private val bCounts = Counts()
    val a: LockClient = client(aCounts)
    val b: LockClient = client(bCounts)

    private fun client(counts: Counts): LockClient =
        LockClient.builder(LocalLockBackend(server)).defaultLease(Duration.ofSeconds(30))
            .listener { counts.of(it.type()).incrementAndGet() }.build()

    /** How many events of [type] [client]'s listener saw. */
    fun count(client: LockClient, type: LockEvent.Type): Int =
        (if (client === a) aCounts else bCounts).of(type).get()

    /** Suspends until the server has [n] requests waiting for [key] (a wait, not a timed assertion). */
    suspend fun awaitWaiters(key: String, n: Int) {
        while (a.inspect(key).waiters().asInt != n) {
            delay(1)
        }
    }

    override fun close() {
        a.close()
        b.close()
    }

    class Counts {
        private val byType = ConcurrentHashMap<LockEvent.Type, AtomicInteger>()
        fun of(type: LockEvent.Type): AtomicInteger = byType.computeIfAbsent(type) { AtomicInteger() }
    }
}
