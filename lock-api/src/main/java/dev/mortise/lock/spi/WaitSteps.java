package dev.mortise.lock.spi;

/**
 * A backend's wait for one request, written once as steps so that the same protocol loop serves
 * both {@link LockBackend#acquire} (run by {@link WaitDriver#await} on the caller's thread) and
 * {@link LockBackend#acquireAsync} (run by {@link WaitDriver#start} on {@link AsyncWaits}' shared
 * threads, holding none while it sleeps). As Curator's {@code LockInternals}: the loop is the
 * backend's; the drivers only decide where it runs and how it sleeps.
 *
 * <p>A driver calls {@link #next()} until it answers granted or ran out, sleeping between calls as
 * each answer says, then {@link #end} exactly once. Calls never overlap and each happens after the
 * previous one returned (a happens-before edge), though not always on the same thread: an
 * implementation keeps its state in plain fields. The steps own the deadline: the drivers know none.
 */
public interface WaitSteps {

    /**
     * Takes one step: the first call sends the first attempt; later calls follow a sleep (woken or
     * timed out: the steps tell which from their own wake-up, if it matters). May block on I/O, but
     * only as long as the backend's operation timeout: on the asynchronous path it runs on one of a
     * few shared threads.
     *
     * @return granted, ran out, or sleep
     * @throws InterruptedException only on the blocking path, when the caller's thread is interrupted
     *                              during a blocking call the step makes
     * @throws RuntimeException     a failure that ends the wait (a {@code LockBackendException} saying
     *                              what failed, with the key and backend)
     */
    WaitStep next() throws InterruptedException;

    /**
     * The wait is over; called exactly once, after the last {@link #next()}. Without a grant
     * ({@code granted} false), removes whatever the steps left on the server (a queue entry, a
     * writer's marker, a node), within the operation timeout, going on in the background past it if
     * need be. With one, keeps it: a grant nobody takes any more (the asynchronous answer was
     * cancelled as it came) is released by the driver through {@link LockBackend#release} after this.
     *
     * @param granted whether the last step granted
     * @param failure null when granted or when the wait ran out; else why the wait ended: the
     *                failure {@link #next()} threw, an {@link InterruptedException} (the blocking
     *                caller was interrupted), or a {@link java.util.concurrent.CancellationException}
     *                (the asynchronous answer was completed by someone else: cancelled, its wait ran
     *                out in the client, the client closed)
     */
    void end(boolean granted, Throwable failure);
}
