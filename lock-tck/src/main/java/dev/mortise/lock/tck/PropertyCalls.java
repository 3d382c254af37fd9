package dev.mortise.lock.tck;

import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The acquire calls of one {@link PropertyWorker}: per operation, from the worker's seeded random,
 * the blocking call or (one time in three, unless the run leaves out {@code async}) its asynchronous
 * form, whose future the worker then waits on, so both paths run under the same faults, contention
 * and checks in every run. One asynchronous wait in four is cancelled part-way: it then carries an
 * owner id of its own, and a cancel that returned true is recorded in {@link OrphanHolds}, which
 * checks at the end that no hold of that owner was left (h); one that returned false found the
 * future complete, whose outcome is handled as the blocking call's would be. The asynchronous forms
 * are their own owners (they never nest in the thread's holds), so nested acquires stay blocking.
 * Used by its worker's thread only.
 */
final class PropertyCalls {

    private final ValidityPropertySuite suite;
    private final PropertyModel model;
    private final Random random;
    private final int worker;
    private int cancels;

    PropertyCalls(ValidityPropertySuite suite, PropertyModel model, Random random, int worker) {
        this.suite = suite;
        this.model = model;
        this.random = random;
        this.worker = worker;
    }

    /**
     * A single-key acquire of {@code spec} ({@code tryOnly}: the try form); {@code plainForm} lets the
     * blocking path use the key-and-wait overloads; {@code byThread} keeps it blocking (a nested acquire).
     *
     * @return the lease, empty if not granted (try form), or null if the worker cancelled it (counted)
     */
    Optional<LockLease> single(PropertyClient client, LockSpec spec, boolean tryOnly, boolean plainForm,
                               boolean byThread, String op) {
        Duration wait = spec.waitTime();
        if (!byThread && async()) {
            String owner = cancelling(wait);
            LockSpec asked = owner == null ? spec : spec.owner(owner);
            if (tryOnly) {
                return await(client.client.tryAcquireAsync(asked), client, wait, owner, op, spec.key());
            }
            LockLease lease = await(client.client.acquireAsync(asked), client, wait, owner, op, spec.key());
            return lease == null ? null : Optional.of(lease);
        }
        String key = spec.key();
        if (tryOnly) {
            return plainForm && random.nextBoolean()
                    ? (wait.isZero() ? client.client.tryAcquire(key) : client.client.tryAcquire(key, wait))
                    : client.client.tryAcquire(spec);
        }
        return Optional.of(plainForm && random.nextBoolean() ? client.client.acquire(key, wait)
                : client.client.acquire(spec));
    }

    /**
     * A multi-key acquire of {@code spec}, blocking or asynchronous as {@link #single} chooses.
     *
     * @return the lease, empty if not granted (try form), or null if the worker cancelled it (counted)
     */
    Optional<MultiLease> multi(PropertyClient client, MultiLockSpec spec, boolean tryOnly, String op) {
        if (async()) {
            Duration wait = spec.waitTime();
            String owner = cancelling(wait);
            MultiLockSpec asked = owner == null ? spec : spec.owner(owner);
            String first = spec.keys().iterator().next();
            if (tryOnly) {
                return await(client.client.tryAcquireAllAsync(asked), client, wait, owner, op, first);
            }
            MultiLease lease = await(client.client.acquireAllAsync(asked), client, wait, owner, op, first);
            return lease == null ? null : Optional.of(lease);
        }
        return tryOnly ? client.client.tryAcquireAll(spec) : Optional.of(client.client.acquireAll(spec));
    }

    private boolean async() {
        return suite.settings().runs("async") && random.nextInt(3) == 0;
    }

    /** An owner id of its own for an asynchronous wait the worker will cancel part-way, or null. */
    private String cancelling(Duration wait) {
        return !wait.isZero() && random.nextInt(4) == 0 ? "cancel-" + worker + "-" + ++cancels : null;
    }

    /**
     * The future's value, or what it failed with, thrown as the blocking call throws it. With an
     * {@code owner}, the wait is cancelled after a random part of it; null if that cancel took effect.
     */
    private <T> T await(CompletableFuture<T> future, PropertyClient client, Duration wait, String owner, String op,
                        String key) {
        suite.count(op + " async");
        try {
            if (owner != null) {
                try {
                    return future.get(random.nextInt((int) Math.min(wait.toMillis(), 2000) + 1), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (future.cancel(true)) {
                        model.orphans.cancelled(client, owner, op + " on '" + PropertyModel.show(key) + "'");
                        suite.count(op + " async cancelled");
                        return null;
                    }
                    suite.count(op + " async cancelled too late");
                }
            }
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException failure) {
                throw failure;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("an async acquire failed with a checked exception", cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("interrupted waiting for an async acquire", key,
                    client.client.backendName(), e);
        }
    }
}
