package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.spring.LockClients;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The engine behind {@code @DistributedLock}, shared by the Spring AOP interceptor and the
 * AspectJ aspect: finds the operation, evaluates the key, and runs the call under the
 * lock — synchronously, or through a {@link ReturnTypeHandler} for results that complete
 * later. Thread-safe.
 */
public final class LockInvoker {

    private final LockOperationSource operations;
    private final LockKeyEvaluator keys;
    private final Supplier<LockClients> clients;
    private final Supplier<LockObserver> observer;
    private final List<ReturnTypeHandler> handlers;
    private final TransactionBinding transactionBinding;
    private final LeaseReleaser releaser;
    private volatile Supplier<FenceCheck> fenceCheck = () -> null;
    private volatile boolean fenceInLockAdvice;

    /**
     * @param clients            looked up at the first call, so that building the AOP
     *                           infrastructure does not start backends early
     * @param observer           looked up at the first call; {@link LockObserver#NOOP} for none
     * @param transactionBinding {@code null} without Spring transactions
     */
    public LockInvoker(LockOperationSource operations, LockKeyEvaluator keys, Supplier<LockClients> clients,
                       Supplier<LockObserver> observer, List<ReturnTypeHandler> handlers,
                       TransactionBinding transactionBinding, LeaseReleaser releaser) {
        this.operations = operations;
        this.keys = keys;
        this.clients = memoize(clients);
        this.observer = memoize(observer);
        this.handlers = List.copyOf(handlers);
        this.transactionBinding = transactionBinding;
        this.releaser = releaser;
    }

    /** Runs {@code invocation}, under its lock if its method is annotated. */
    public Object invoke(LockInvocation invocation) throws Throwable {
        Optional<LockOperation> found = operations.find(invocation.method(), invocation.targetClass());
        if (found.isEmpty()) {
            return invocation.proceed(invocation.arguments());
        }
        LockOperation operation = found.get();
        LockKeys lockKeys = keys.keys(operation, invocation.arguments(), invocation.target(),
                invocation.targetClass());
        if (lockKeys.multi()) {
            refuseFencingTokenParameter(operation, lockKeys);
        }
        CallFence fence = operation.fenced() ? new CallFence(keys.fences(operation, lockKeys, invocation.arguments(),
                invocation.target(), invocation.targetClass())) : null;
        LockedCall call = new LockedCall(operation, clients.get().get(operation.backend()), lockKeys, invocation,
                this, fence);
        Class<?> returnType = call.returnType();
        for (ReturnTypeHandler handler : handlers) {
            if (handler.supports(returnType)) {
                return handler.handle(call);
            }
        }
        return invokeBlocking(call);
    }

    /**
     * A {@code @FencingToken} parameter carries one token; a multi-key lock has one per key, so none
     * can be chosen for it. (A {@code fence} is evaluated per key instead, with {@code #lockKey}.)
     */
    private static void refuseFencingTokenParameter(LockOperation operation, LockKeys lockKeys) {
        if (operation.fencingArgIndex() >= 0) {
            throw new IllegalStateException("@DistributedLock key \"" + operation.keyExpression() + "\" on "
                    + operation.describeMethod() + " evaluated to several keys " + lockKeys.keys() + " (a multi-key "
                    + "lock), but the method has a @FencingToken parameter, which needs the one fencing token of a "
                    + "single key: each key of a multi-key lock has its own. Lock a single key, read each key's token "
                    + "inside the method from LockContext.find(key), or fence each key's resource with fence = "
                    + "\"'balance:' + #lockKey\". The method did not run.");
        }
    }

    private Object invokeBlocking(LockedCall call) throws Throwable {
        Optional<LockedCall.Held> acquired = call.acquire(call.owner(false));
        if (acquired.isEmpty()) {
            return SkipValues.forType(call.returnType());
        }
        LockedCall.Held held = acquired.get();
        boolean bound;
        try {
            bound = call.bindToTransaction(held);
        } catch (RuntimeException | Error e) {
            call.release(held);
            throw e;
        }
        ThreadInterrupter interrupter = call.onLostPolicy() == dev.mortise.lock.spring.OnLost.NOTIFY ? null
                : new ThreadInterrupter(Thread.currentThread());
        if (interrupter != null) {
            call.onLost(held, lost -> interrupter.interrupt());
        }
        Object result;
        try {
            result = call.proceed(held);
        } catch (Throwable failure) {
            if (interrupter != null) {
                interrupter.finish();
            }
            if (!bound) {
                releaseAfterFailure(call, held, failure);
            }
            throw failure;
        }
        if (interrupter != null) {
            interrupter.finish();
        }
        if (!bound) {
            call.release(held);
        }
        return result;
    }

    /**
     * As {@code LockClient.call}: a loss wins over the method's failure, which is suppressed into
     * it; except a refused fence check, which already says the lease ran out and what to do.
     */
    static void releaseAfterFailure(LockedCall call, LockedCall.Held held, Throwable failure) {
        try {
            call.release(held);
        } catch (LockLostException lost) {
            if (staleFence(failure)) {
                failure.addSuppressed(lost);
                return;
            }
            lost.addSuppressed(failure);
            throw lost;
        } catch (LockException closeFailure) {
            failure.addSuppressed(closeFailure);
        }
    }

    /** A {@code StaleFencingTokenException} of lock-fencing, an optional dependency (hence by name). */
    private static boolean staleFence(Throwable failure) {
        for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals("dev.mortise.lock.fencing.StaleFencingTokenException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Interrupts the thread running a method whose lock was lost (onLost = INTERRUPT or
     * CANCEL), only while the method runs: once it returned, the thread belongs to its
     * caller again, and an interrupt the method did not consume is cleared.
     */
    private static final class ThreadInterrupter {
        private final Thread thread;
        private boolean running = true;
        private boolean interrupted;

        ThreadInterrupter(Thread thread) {
            this.thread = thread;
        }

        synchronized void interrupt() {
            if (running) {
                interrupted = true;
                thread.interrupt();
            }
        }

        /** On the method's thread, when it returned or threw. */
        synchronized void finish() {
            running = false;
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }

    /**
     * Sets how {@code fence} attributes are checked: {@code check} is looked up at the first
     * fenced call; {@code inLockAdvice} checks right after the lock is taken (AspectJ weaving),
     * otherwise the {@link FenceInterceptor} does, inside the method's transaction.
     */
    public void useFences(Supplier<FenceCheck> check, boolean inLockAdvice) {
        this.fenceCheck = memoize(check);
        this.fenceInLockAdvice = inLockAdvice;
    }

    boolean fenceInLockAdvice() {
        return fenceInLockAdvice;
    }

    /** The fence check, or a failure naming the method if fencing is not set up. */
    FenceCheck fenceCheck(LockOperation operation) {
        FenceCheck check = fenceCheck.get();
        if (check == null) {
            throw FenceCheck.missing(operation);
        }
        return check;
    }

    LockObserver observer() {
        return observer.get();
    }

    LeaseReleaser releaser() {
        return releaser;
    }

    TransactionBinding transactionBinding() {
        return transactionBinding;
    }

    private static <T> Supplier<T> memoize(Supplier<T> supplier) {
        return new Supplier<>() {
            private volatile T value;

            @Override
            public T get() {
                T current = value;
                if (current == null) {
                    current = supplier.get();
                    value = current;
                }
                return current;
            }
        };
    }
}
