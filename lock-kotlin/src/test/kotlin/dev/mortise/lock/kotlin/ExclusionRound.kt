package dev.mortise.lock.kotlin

import dev.mortise.lock.LockClient
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.yield
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/** What [exclusionRound] saw: blocks that found another inside the key, and blocks that finished. */
data class Exclusion(val overlaps: Int, val done: Int)

/**
 * Launches [n] coroutines that each take [key] with `withLock` on `clients[i % clients.size]`,
 * check they are alone in it across a suspension, and count themselves done; returns when all ended.
 */
suspend fun exclusionRound(n: Int, key: String, wait: Duration, clients: List<LockClient>): Exclusion {
    val inside = AtomicInteger()
    val overlaps = AtomicInteger()
    var done = 0
    coroutineScope {
        repeat(n) { i ->
            launch {
                clients[i % clients.size].withLock(key, wait) {
                    if (inside.incrementAndGet() != 1) overlaps.incrementAndGet()
                    yield()
                    done++ // unsynchronized on purpose: only the lock keeps it exact
                    inside.decrementAndGet()
                }
            }
        }
    }
    return Exclusion(overlaps.get(), done)
}
