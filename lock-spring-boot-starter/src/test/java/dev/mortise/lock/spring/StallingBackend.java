package dev.mortise.lock.spring;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The in-process backend with an acquire that can be held up before it reaches the server
 * or after the server granted it (the answer of the last round trip still on its way), as
 * a slow network would, on the blocking and the asynchronous wait alike: the stall ignores
 * interrupts, like a blocking socket read. Every other
 * call is forwarded to the in-process backend.
 */
final class StallingBackend extends ForwardingLockBackend {

    /** Where the next acquire stops. */
    enum Stall { NONE, BEFORE_GRANT, AFTER_GRANT }

    private final LocalLockBackend local;
    private volatile Stall stall = Stall.NONE;
    private volatile CountDownLatch reached = new CountDownLatch(1);
    private volatile CountDownLatch proceed = new CountDownLatch(1);

    StallingBackend() {
        this(new LocalLockBackend(new LocalLockServer("stalling")));
    }

    private StallingBackend(LocalLockBackend local) {
        super(local);
        this.local = local;
    }

    LocalLockServer server() {
        return local.server();
    }

    /** Makes the next acquires stop at {@code where} until {@link #proceed()}. */
    void stallAt(Stall where) {
        reached = new CountDownLatch(1);
        proceed = new CountDownLatch(1);
        stall = where;
    }

    /** Waits until an acquire is stopped at the stall point. */
    boolean awaitStalled() throws InterruptedException {
        return reached.await(10, TimeUnit.SECONDS);
    }

    /** Lets stalled acquires go on; later ones do not stall. */
    void proceed() {
        stall = Stall.NONE;
        proceed.countDown();
    }

    private void pause(Stall at) {
        if (stall != at) {
            return;
        }
        reached.countDown();
        boolean interrupted = false;
        while (true) {
            try {
                if (proceed.await(30, TimeUnit.SECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String name() {
        return "stalling";
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        pause(Stall.BEFORE_GRANT);
        Attempt attempt = local.tryAcquire(request);
        pause(Stall.AFTER_GRANT);
        return attempt;
    }

    @Override
    public java.util.List<Grant> tryAcquireAll(java.util.List<LockRequest> requests) {
        pause(Stall.BEFORE_GRANT);
        java.util.List<Grant> grants = local.tryAcquireAll(requests);
        pause(Stall.AFTER_GRANT);
        return grants;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        pause(Stall.BEFORE_GRANT);
        Optional<Grant> grant = local.acquire(request, wait);
        pause(Stall.AFTER_GRANT);
        return grant;
    }

    /**
     * The asynchronous wait stalls as the blocking one does, on a thread of this test backend's
     * (the slow network it plays); a grant its caller no longer takes is released. Unstalled, the
     * in-process backend's own wait, which holds no thread.
     */
    @Override
    public java.util.concurrent.CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        if (stall == Stall.NONE) {
            return local.acquireAsync(request, wait);
        }
        java.util.concurrent.CompletableFuture<Optional<Grant>> answer = new java.util.concurrent.CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                Optional<Grant> grant = acquire(request, wait);
                if (!answer.complete(grant)) {
                    grant.ifPresent(local::release);
                }
            } catch (Throwable e) {
                answer.completeExceptionally(e);
            }
        }, "stalling-acquire");
        thread.setDaemon(true);
        thread.start();
        return answer;
    }
}
