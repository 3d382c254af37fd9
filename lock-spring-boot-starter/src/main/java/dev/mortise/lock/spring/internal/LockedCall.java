package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.LockBusyException;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.internal.LockObserver.Outcome;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One call of an annotated method with its key evaluated: the steps return-type handlers
 * compose (acquire by the busy policy, run the method with the lease, release).
 */
public final class LockedCall {

    private final LockOperation operation;
    private final LockClient client;
    private final LockKeys keys;
    private final LockInvocation invocation;
    private final LockInvoker invoker;
    private final CallFence fence;

    LockedCall(LockOperation operation, LockClient client, LockKeys keys, LockInvocation invocation,
               LockInvoker invoker, CallFence fence) {
        this.operation = operation;
        this.client = client;
        this.keys = keys;
        this.invocation = invocation;
        this.invoker = invoker;
        this.fence = fence;
    }

    /** A lease and what to do when it ends; {@code holdAtLeast} is {@code null} for none. */
    public record Held(LockLease lease, String owner, long acquiredNanos, Runnable stopObserving,
                       Duration holdAtLeast) {
    }

    public LockOperation operation() {
        return operation;
    }

    /** The key, or for a multi-key lock its keys as text ({@code [a, b]}), for messages. */
    public String key() {
        return keys.text();
    }

    /** The evaluated keys of this call. */
    public LockKeys keys() {
        return keys;
    }

    /** The leases of {@code held}: its one lease, or the parts of a multi-key lock in canonical order. */
    public static List<LockLease> leases(Held held) {
        return leases(held.lease());
    }

    private static List<LockLease> leases(LockLease lease) {
        return lease instanceof MultiKeyLease multi ? multi.multi().parts() : List.of(lease);
    }

    /**
     * The declared return type of the method; for a Kotlin {@code suspend} method the publisher
     * Spring's AOP hands it over as ({@link SuspendingMethods}).
     */
    public Class<?> returnType() {
        return SuspendingMethods.adviceReturnType(invocation.method());
    }

    /**
     * The owner to acquire as: the owner of an enclosing annotated call on the same lock
     * (so it re-enters), else the thread, or a fresh id when {@code detached} (the hold
     * outlives the call on this thread: an async result, a holdAtLeast release).
     */
    public String owner(boolean detached) {
        ActiveLocks.Entry outer = null;
        for (String key : keys.keys()) {
            outer = ActiveLocks.find(client, key);
            if (outer != null) {
                break;
            }
        }
        if (outer != null && (outer.owner() != null || !detached)) {
            return outer.owner();
        }
        return detached || operation.holdAtLeast() != null ? newOwner() : null;
    }

    /** A fresh owner id, for a hold that is nobody's thread's. */
    static String newOwner() {
        return "mortise-spring:" + UUID.randomUUID();
    }

    /** What happens when the hold is lost while the method runs, by the operation's policy. */
    public dev.mortise.lock.spring.OnLost onLostPolicy() {
        return operation.onLost();
    }

    /**
     * Calls {@code action} with a {@link LockLostException} naming the method if the hold
     * of {@code held} is lost (at once, on this thread, if it already is).
     */
    public void onLost(Held held, java.util.function.Consumer<LockLostException> action) {
        String key = key();
        held.lease().onLost(event -> action.accept(new LockLostException("Lock '" + key + "' of "
                + operation.describeMethod() + " on backend '" + client.backendName() + "' was lost while the "
                + "method ran (" + event.reason() + "), so onLost = " + operation.onLost() + " ended the call. "
                + "Make the lease longer than the longest pause (mortise.lock.default-lease) or check the "
                + "server's health.", key, client.backendName(), event.reason(), null)));
    }

    /**
     * Acquires by the operation's busy policy, waiting on this thread.
     *
     * @return the lease, or empty when SKIP found the lock busy
     * @throws LockTimeoutException for WAIT ran out, {@link LockBusyException} for FAIL
     */
    public Optional<Held> acquire(String owner) {
        Duration wait = operation.waitFor();
        LockObserver.Acquisition observed = observe();
        Optional<LockLease> lease;
        try (AcquiringName ignored = AcquiringName.set(operation.name())) {
            lease = keys.multi() ? acquireAll(wait, owner) : acquireOne(wait, owner);
        } catch (RuntimeException | Error e) {
            notAcquired(observed, e);
            throw e;
        }
        return granted(observed, lease, owner);
    }

    /** Starts observing an acquire of this call (exactly one of the acquisition's methods is called later). */
    LockObserver.Acquisition observe() {
        return invoker.observer().acquiring(operation, client.backendName(), key());
    }

    /** Records that the acquire failed with {@code failure} (a timeout as BUSY or TIMEOUT). */
    void notAcquired(LockObserver.Acquisition observed, Throwable failure) {
        if (failure instanceof LockTimeoutException) {
            observed.notAcquired(operation.waitFor().isZero() ? Outcome.BUSY : Outcome.TIMEOUT, null);
        } else {
            observed.notAcquired(Outcome.ERROR, failure);
        }
    }

    /**
     * The acquire answered {@code lease} (empty: not granted in time): the hold, or empty for SKIP.
     *
     * @throws LockBusyException for FAIL when not granted
     */
    Optional<Held> granted(LockObserver.Acquisition observed, Optional<LockLease> lease, String owner) {
        String key = key();
        if (lease.isEmpty()) {
            observed.notAcquired(operation.waitFor().isZero() ? Outcome.BUSY : Outcome.TIMEOUT, null);
            if (operation.onBusy() == OnBusy.FAIL) {
                throw new LockBusyException("Lock '" + key + "' of " + operation.describeMethod() + " on backend '"
                        + client.backendName() + "' is held by another owner and onBusy = FAIL, so the method did "
                        + "not run. Retry later, or use onBusy = WAIT with waitFor to wait for it.", key,
                        client.backendName());
            }
            return Optional.empty();
        }
        Runnable stopObserving = observed.acquired();
        Runnable forget = AnnotatedHolds.register(client, leases(lease.get()), keys.multi());
        Held held = new Held(lease.get(), owner, System.nanoTime(), () -> {
            forget.run();
            stopObserving.run();
        }, operation.holdAtLeast());
        if (operation.holdAtLeast() != null) {
            invoker.releaser().track(held);
        }
        return Optional.of(held);
    }

    /**
     * Sends this call's request without waiting on this thread ({@link PendingAcquire}): the
     * client's future, completed with the lease, or empty when not granted in time.
     */
    CompletableFuture<Optional<LockLease>> requestAsync(String owner) {
        Duration wait = operation.waitFor();
        if (keys.multi()) {
            MultiLockSpec spec = multiSpec(wait, owner);
            return operation.onBusy() == OnBusy.WAIT
                    ? PendingAcquire.leaseOf(client.acquireAllAsync(spec), all -> Optional.of(new MultiKeyLease(all)))
                    : PendingAcquire.leaseOf(client.tryAcquireAllAsync(spec), all -> all.map(MultiKeyLease::new));
        }
        LockSpec spec = spec(wait, owner);
        if (operation.onBusy() == OnBusy.WAIT) {
            return PendingAcquire.optional(client.acquireAsync(spec));
        }
        return client.tryAcquireAsync(spec);
    }

    /** The backend name of this call's client. */
    String backendName() {
        return client.backendName();
    }

    /** The request of a single-key call, in the operation's mode. */
    LockSpec spec(Duration wait, String owner) {
        return LockSpec.of(keys.keys().get(0)).mode(operation.mode().lockMode()).waitFor(wait)
                .lease(operation.lease()).owner(owner);
    }

    /** The request of a multi-key call: every key in the operation's mode. */
    MultiLockSpec multiSpec(Duration wait, String owner) {
        MultiLockSpec spec = MultiLockSpec.of(List.of());
        for (String key : keys.keys()) {
            spec = operation.mode() == LockAccess.READ ? spec.shared(key) : spec.exclusive(key);
        }
        return spec.waitFor(wait).lease(operation.lease()).owner(owner);
    }

    private Optional<LockLease> acquireOne(Duration wait, String owner) {
        LockSpec spec = spec(wait, owner);
        return operation.onBusy() == OnBusy.WAIT ? Optional.of(client.acquire(spec)) : client.tryAcquire(spec);
    }

    private Optional<LockLease> acquireAll(Duration wait, String owner) {
        MultiLockSpec spec = multiSpec(wait, owner);
        Optional<MultiLease> all = operation.onBusy() == OnBusy.WAIT ? Optional.of(client.acquireAll(spec))
                : client.tryAcquireAll(spec);
        return all.map(MultiKeyLease::new);
    }

    /** Runs the method under {@code held}: injects the fencing token, lets nested calls re-enter. */
    public Object proceed(Held held) throws Throwable {
        Object[] args = invocation.arguments();
        if (operation.fencingArgIndex() >= 0) {
            args = args.clone();
            args[operation.fencingArgIndex()] = held.lease().fencingToken();
        }
        // one entry per key, so that a nested call on any key of a multi-key lock re-enters its part
        List<LockLease> parts = leases(held);
        List<ActiveLocks.Entry> entries = new ArrayList<>(parts.size());
        CallFence bound = fence == null ? null : fence.boundTo(held.lease());
        for (LockLease part : parts) {
            ActiveLocks.Entry entry = new ActiveLocks.Entry(client, part.key(), held.owner(), part, operation, bound);
            ActiveLocks.push(entry);
            entries.add(entry);
        }
        try {
            if (fence != null && invoker.fenceInLockAdvice()) {
                // AspectJ weaving: no advice runs between the lock and the body, so the transaction
                // must already be active here (the lock inside @Transactional).
                bound.check(invoker.fenceCheck(operation), operation);
            }
            return invocation.proceed(args);
        } finally {
            for (int i = entries.size() - 1; i >= 0; i--) {
                ActiveLocks.pop(entries.get(i));
            }
        }
    }

    /**
     * Ends {@code held}: deletes the hold, or, while its holdAtLeast has time left, leaves
     * it on the server to expire at exactly that instant ({@link LockLease#closeLingering}).
     * A lease lost while the method ran throws {@link LockLostException} here.
     */
    public void release(Held held) {
        try {
            if (operation.holdAtLeast() != null) {
                invoker.releaser().release(held, operation.holdAtLeast());
            } else {
                held.lease().close();
            }
        } finally {
            held.stopObserving().run();
        }
    }

    /** Hands the release to the running transaction, if any (see {@link TransactionBinding}). */
    boolean bindToTransaction(Held held) {
        TransactionBinding binding = invoker.transactionBinding();
        return binding != null && binding.bind(held.lease(), () -> release(held));
    }
}
