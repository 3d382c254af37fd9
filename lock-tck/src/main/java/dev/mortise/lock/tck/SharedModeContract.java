package dev.mortise.lock.tck;

import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the read-write contracts share: whether the backend grants shared requests, the clear
 * refusal that is the contract where it does not, request builders, and threads that act as
 * other owners.
 */
abstract class SharedModeContract extends NestedContract {

    SharedModeContract(LockBackendContractSuite contract) {
        super(contract);
    }

    /** Whether the backend under test grants shared requests. */
    protected boolean sharedSupported() {
        return contract.supportsSharedMode();
    }

    /**
     * On a backend without shared mode, the contract is the clear refusal: asserts it and
     * returns true (the caller then has nothing more to check). False where shared mode is
     * supported. Never a skip: every test of this suite asserts something on every backend.
     */
    protected boolean refusedClearlyWhereUnsupported() {
        if (sharedSupported()) {
            return false;
        }
        String key = key();
        assertThatThrownBy(() -> a.acquire(shared(key, Duration.ofSeconds(1))))
                .isInstanceOf(LockException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("'" + a.backendName() + "'")
                .hasMessageContaining("supportsSharedMode");
        assertThatThrownBy(() -> a.readWriteLock(key).readLock().tryLock()).isInstanceOf(LockException.class);
        try {
            assertThat(contract.residueOnServer(key)).as("a refused shared request leaves nothing").isZero();
        } catch (Exception e) {
            throw new AssertionError("could not count what is left on the server for '" + key + "'", e);
        }
        try (LockLease exclusive = a.acquire(key, WAIT)) {
            assertThat(exclusive.mode()).isEqualTo(LockMode.EXCLUSIVE);
        }
        return true;
    }

    protected static LockSpec shared(String key, Duration wait) {
        return LockSpec.of(key).shared().waitFor(wait);
    }

    protected static LockSpec exclusive(String key, Duration wait) {
        return LockSpec.of(key).waitFor(wait);
    }

    Thread start(String name, Runnable body) {
        return startThread("tck-rw-" + name, body);
    }

    static final Duration WAIT = Duration.ofSeconds(10);

    // ---- helpers -------------------------------------------------------------------------

    /** Runs {@code body} on a fresh thread (another owner) and returns its result. */
    protected static <T> T onOtherThread(java.util.concurrent.Callable<T> body) throws Exception {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(body);
        Thread thread = new Thread(task, "tck-rw-other");
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e;
        }
    }

    static <T> T runElsewhere(java.util.concurrent.Callable<T> body) {
        try {
            return onOtherThread(body);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Starts {@code waiting} on a thread, interrupts it once it waits, and returns what it threw. */
    Throwable interruptWhileWaiting(java.util.concurrent.Callable<LockLease> waiting) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = start("interrupted", () -> {
            try {
                waiting.call().close();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        Thread.sleep(400);
        waiter.interrupt();
        waiter.join(LockBackendContractSuite.SLACK.toMillis());
        assertThat(waiter.isAlive()).as("waiter still waiting after interrupt").isFalse();
        return failure.get();
    }
}
