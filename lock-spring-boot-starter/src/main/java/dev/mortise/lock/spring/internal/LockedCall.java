package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.spring.LockBusyException;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.internal.LockObserver.Outcome;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * One call of an annotated method with its key evaluated: the steps return-type handlers
 * compose (acquire by the busy policy, run the method with the lease, release).
 */
public final class LockedCall {

    private final LockOperation operation;
    private final LockClient client;
    private final String key;
    private final LockInvocation invocation;
    private final LockInvoker invoker;

    LockedCall(LockOperation operation, LockClient client, String key, LockInvocation invocation, LockInvoker invoker) {
        this.operation = operation;
        this.client = client;
        this.key = key;
        this.invocation = invocation;
        this.invoker = invoker;
    }

    /** A lease and what to do when it ends. */
    public record Held(LockLease lease, String owner, long acquiredNanos, Runnable stopObserving) {
    }

    public LockOperation operation() {
        return operation;
    }

    public String key() {
        return key;
    }

    /** The declared return type of the method. */
    public Class<?> returnType() {
        return invocation.method().getReturnType();
    }

    /**
     * The owner to acquire as: the owner of an enclosing annotated call on the same lock
     * (so it re-enters), else the thread, or a fresh id when {@code detached} (the hold
     * outlives the call on this thread: an async result, a holdAtLeast release).
     */
    public String owner(boolean detached) {
        ActiveLocks.Entry outer = ActiveLocks.find(client, key);
        if (outer != null) {
            return outer.owner();
        }
        return detached || operation.holdAtLeast() != null ? "mortise-spring:" + UUID.randomUUID() : null;
    }

    /**
     * Acquires by the operation's busy policy.
     *
     * @return the lease, or empty when SKIP found the lock busy
     * @throws LockTimeoutException for WAIT ran out, {@link LockBusyException} for FAIL
     */
    public Optional<Held> acquire(String owner) {
        Duration wait = operation.waitFor();
        LockSpec spec = LockSpec.of(key).waitFor(wait).lease(operation.lease()).owner(owner);
        LockObserver.Acquisition observed = invoker.observer().acquiring(operation, client.backendName(), key);
        Optional<LockLease> lease;
        try {
            lease = operation.onBusy() == OnBusy.WAIT ? Optional.of(client.acquire(spec)) : client.tryAcquire(spec);
        } catch (LockTimeoutException e) {
            observed.notAcquired(wait.isZero() ? Outcome.BUSY : Outcome.TIMEOUT, null);
            throw e;
        } catch (RuntimeException | Error e) {
            observed.notAcquired(Outcome.ERROR, e);
            throw e;
        }
        if (lease.isEmpty()) {
            observed.notAcquired(wait.isZero() ? Outcome.BUSY : Outcome.TIMEOUT, null);
            if (operation.onBusy() == OnBusy.FAIL) {
                throw new LockBusyException("Lock '" + key + "' of " + operation.describeMethod() + " on backend '"
                        + client.backendName() + "' is held by another owner and onBusy = FAIL, so the method did "
                        + "not run. Retry later, or use onBusy = WAIT with waitFor to wait for it.", key,
                        client.backendName());
            }
            return Optional.empty();
        }
        return Optional.of(new Held(lease.get(), owner, System.nanoTime(), observed.acquired()));
    }

    /** Runs the method under {@code held}: injects the fencing token, lets nested calls re-enter. */
    public Object proceed(Held held) throws Throwable {
        Object[] args = invocation.arguments();
        if (operation.fencingArgIndex() >= 0) {
            args = args.clone();
            args[operation.fencingArgIndex()] = held.lease().fencingToken();
        }
        ActiveLocks.Entry entry = new ActiveLocks.Entry(client, key, held.owner(), held.lease());
        ActiveLocks.push(entry);
        try {
            return invocation.proceed(args);
        } finally {
            ActiveLocks.pop(entry);
        }
    }

    /**
     * Ends {@code held}: at once, or when its holdAtLeast has passed if the lease is still
     * valid. A lease lost while the method ran throws {@link dev.mortise.lock.LockLostException} here.
     */
    public void release(Held held) {
        Runnable close = () -> {
            try {
                held.lease().close();
            } finally {
                held.stopObserving().run();
            }
        };
        if (operation.holdAtLeast() != null && held.lease().isValid()) {
            invoker.releaser().release(close, held.acquiredNanos(), operation.holdAtLeast());
        } else {
            close.run();
        }
    }

    /** Hands the release to the running transaction, if any (see {@link TransactionBinding}). */
    boolean bindToTransaction(Held held) {
        TransactionBinding binding = invoker.transactionBinding();
        return binding != null && binding.bind(held.lease(), () -> release(held));
    }
}
