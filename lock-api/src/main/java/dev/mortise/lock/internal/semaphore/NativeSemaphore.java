package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Permits;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link LockSemaphore} of a backend that keeps permits itself
 * ({@link dev.mortise.lock.spi.LockBackend#supportsPermits()}): an acquisition of n permits is one
 * request for one SHARED hold of the key {@link #permitsKey()} that carries n and this handle's
 * count; the server admits it when the live holds' counts plus n fit under the count it keeps, and
 * wakes it when they do. The hold is an ordinary hold of the core from then on (validity, watchdog
 * renewal or an explicit lease, {@code onLost}, release), with an owner id of its own (never
 * nested), a fencing token from the key's one counter. It reaches the core through
 * {@link PermitHolds} alone. Use {@link LockClient#semaphore}.
 *
 * <p>Thread-safe. The count is volatile: {@link #setPermits} changes it for every later call of
 * this handle.
 */
final class NativeSemaphore extends SemaphoreForms {

    private final PermitHolds holds;
    private final String name;
    private volatile int permits;

    NativeSemaphore(PermitHolds holds, String name, int permits) {
        SlotSemaphore.checkNameAndCount(holds.backendName(), name, permits);
        this.holds = holds;
        this.name = name;
        this.permits = permits;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public void setPermits(int permits) {
        SlotSemaphore.checkNameAndCount(holds.backendName(), name, permits);
        holds.setPermits(permitsKey(), permits);
        this.permits = permits;
    }

    @Override
    String backendName() {
        return holds.backendName();
    }

    @Override
    Optional<PermitLease> take(int n, Duration wait, Duration lease, boolean throwOnTimeout) {
        SlotSemaphore.check(holds.backendName(), name, permits, n, wait);
        String owner = owner();
        long deadline = Deadlines.after(System.nanoTime(), wait);
        while (true) {
            int limit = permits;
            LockLease granted;
            try {
                granted = holds.acquire(permitsKey(), new Permits(n, limit), left(wait, deadline), lease, owner);
            } catch (PermitCountMismatchException e) {
                if (askAgain(e, limit, n, wait, deadline)) {
                    continue;
                }
                throw e;
            }
            return answer(granted, n, wait, throwOnTimeout);
        }
    }

    /** {@link #take} without a thread waiting: the same steps, each request through {@link PermitHolds#acquireAsync}. */
    @Override
    CompletableFuture<Optional<PermitLease>> takeAsync(int n, Duration wait, Duration lease, boolean throwOnTimeout) {
        AsyncPermits<LockLease> run = new AsyncPermits<>();
        run.begin(() -> {
            SlotSemaphore.check(holds.backendName(), name, permits, n, wait);
            if (lease != null) {
                SlotSemaphore.checkLease(holds.backendName(), name, lease);
            }
            String owner = owner();
            long deadline = Deadlines.after(System.nanoTime(), wait);
            askAsync(run, n, wait, lease, owner, deadline, throwOnTimeout);
        });
        return run.answer();
    }

    private void askAsync(AsyncPermits<LockLease> run, int n, Duration wait, Duration lease, String owner,
                          long deadline, boolean throwOnTimeout) {
        int limit = permits;
        run.ask(holds.acquireAsync(permitsKey(), new Permits(n, limit), left(wait, deadline), lease, owner),
                (granted, failure) -> {
                    if (failure instanceof PermitCountMismatchException mismatch
                            && askAgain(mismatch, limit, n, wait, deadline)) {
                        askAsync(run, n, wait, lease, owner, deadline, throwOnTimeout);
                    } else if (failure != null) {
                        run.fail(failure);
                    } else {
                        run.finish(() -> answer(granted, n, wait, throwOnTimeout));
                    }
                });
    }

    /** An owner id of the acquisition's own: permits never nest. */
    private String owner() {
        return "semaphore:" + name + ":" + UUID.randomUUID();
    }

    private static Duration left(Duration wait, long deadline) {
        return wait.isZero() ? Duration.ZERO : Duration.ofNanos(Deadlines.left(deadline));
    }

    /**
     * Whether a refused count is this handle's count changed (setPermits) while the request was on its
     * way: the server has the new count, so ask again with it. Any other disagreement is the caller's.
     */
    private boolean askAgain(PermitCountMismatchException e, int limit, int n, Duration wait, long deadline) {
        return permits != limit && permits == e.storedPermits() && n <= permits
                && (wait.isZero() || Deadlines.left(deadline) > 0);
    }

    /** The permit lease of a grant; empty, or {@link LockTimeoutException}, when none came in time. */
    private Optional<PermitLease> answer(LockLease granted, int n, Duration wait, boolean throwOnTimeout) {
        if (granted != null) {
            return Optional.of(new NativePermitLease(name, holds.backendName(), n, granted));
        }
        if (throwOnTimeout) {
            throw new LockTimeoutException("Could not acquire " + n + " of the " + permits
                    + " permits of semaphore '" + name + "' on backend '" + holds.backendName() + "' within "
                    + wait + ": the holders of '" + permitsKey() + "' kept more than " + (permits - n)
                    + " permits. Nothing is held now. Wait longer, ask for fewer permits, or find the holders "
                    + "(LockClient.inspect(\"" + permitsKey() + "\")).", permitsKey(), holds.backendName());
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "LockSemaphore[name=" + name + ", permits=" + permits + ", native, backend=" + holds.backendName()
                + "]";
    }
}
