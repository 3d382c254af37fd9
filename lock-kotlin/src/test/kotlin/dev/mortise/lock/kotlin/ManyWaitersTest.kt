package dev.mortise.lock.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.lang.management.ManagementFactory
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** 1,000 coroutines waiting on 10 keys of the in-process backend, which waits natively: no thread per waiter. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ManyWaitersTest {

    private val locks = LocalLocks()

    @AfterEach
    fun close() = locks.close()

    @Test
    fun `a thousand waiters on ten keys all finish, without a thread each`(): Unit = runBlocking(Dispatchers.Default) {
        val threads = ManagementFactory.getThreadMXBean()
        threads.resetPeakThreadCount()
        val before = threads.threadCount
        val done = IntArray(10) // per key, guarded by that key's lock
        val overlaps = AtomicInteger()
        val inside = Array(10) { AtomicInteger() }
        coroutineScope {
            repeat(1000) { i ->
                launch {
                    val k = i % 10
                    (if (i % 2 == 0) locks.a else locks.b).withLock("many:$k", Duration.ofMinutes(4)) {
                        if (inside[k].incrementAndGet() != 1) overlaps.incrementAndGet()
                        delay(1) // hold across a suspension, so the others really wait
                        done[k]++
                        inside[k].decrementAndGet()
                    }
                }
            }
        }
        assertThat(done).containsOnly(100)
        assertThat(overlaps.get()).isZero()
        // A thread per waiter would add about a thousand; the pools add a handful.
        assertThat(threads.peakThreadCount - before).isLessThan(100)
        (0 until 10).forEach { assertThat(locks.server.records("many:$it")).isZero() }
    }
}
