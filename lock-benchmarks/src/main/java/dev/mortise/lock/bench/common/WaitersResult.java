package dev.mortise.lock.bench.common;

/**
 * Many waiters at once on a few held keys: the platform threads and the heap the waits cost while
 * they wait, and how long they take to drain once the keys are let go (each waiter takes its key and
 * lets it go at once).
 *
 * @param threadsFew      live platform threads added while {@code fewWaiters} wait
 * @param threadsMany     live platform threads added while {@code waiters} wait (independent of the number
 *                        of waiters when equal to {@code threadsFew}, give or take a pool's spare thread)
 * @param heapBytesPerWaiter growth of the used heap after full GCs while {@code waiters} wait, per waiter
 *                        (thread stacks are not heap: a blocked platform thread costs its stack besides)
 * @param drainSeconds    from the release of the held keys until every waiter has had its key and let it go
 */
public record WaitersResult(String group, String id, String label, int fewWaiters, int waiters, int keys,
                            int threadsFew, int threadsMany, double heapBytesPerWaiter, double drainSeconds) {
}
