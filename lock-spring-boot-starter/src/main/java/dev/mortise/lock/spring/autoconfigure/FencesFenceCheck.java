package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.spring.fencing.FenceRejections;
import dev.mortise.lock.spring.fencing.Fences;
import dev.mortise.lock.spring.internal.FenceCheck;
import dev.mortise.lock.spring.internal.LockOperation;

import java.util.function.Function;

/**
 * The check of {@code @DistributedLock(fence = ...)} methods, made by the application's
 * {@link Fences} bean (the auto-configured one or the application's own): refusals are told
 * with the annotation's name instead of {@code programmatic}, and a call outside a transaction
 * on the guard's DataSource fails naming the method rather than {@code Fences.check}.
 * Thread-safe.
 */
record FencesFenceCheck(Fences fences) implements FenceCheck {

    @Override
    public void check(LockOperation operation, String resource, LockLease lease) {
        requireTransaction(operation, resource);
        FenceRejections.tagged(lease.backend(), operation.name(), () -> fences.check(resource, lease));
    }

    @Override
    public void checkAll(LockOperation operation, MultiLease lease, Function<String, String> resourceOfKey) {
        requireTransaction(operation, lease.keys().toString());
        FenceRejections.tagged(lease.backend(), operation.name(), () -> fences.checkAll(lease, resourceOfKey));
    }

    private void requireTransaction(LockOperation operation, String resource) {
        fences.transactionProblem().ifPresent(problem -> {
            throw FenceCheck.outsideTransaction(operation, resource, problem);
        });
    }
}
