package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.internal.group.LeaseFutures;
import dev.mortise.lock.spi.AsyncWaits;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One asynchronous multi-key acquire: {@link MultiAcquirer}'s steps (its checks, its fast path,
 * its parts in canonical order under one deadline, its give-back and its messages), each part
 * through the client's {@code acquireAsync} ({@code tryAcquireAsync} for the try form) instead of
 * a blocking acquire, so each part passes its key's gate and the backend's asynchronous wait as a
 * single async acquire does, and no thread waits.
 *
 * <p>Its answer is completed once, never on the caller's thread. Completed by anyone else (a
 * cancel), the part under way is cancelled (it withdraws from where it waits, a grant racing it is
 * released) and every part taken is released; a multi-key lease completed too late is closed. The
 * steps run one after another (each after the previous part's answer), so the parts taken are kept
 * in plain fields.
 */
final class AsyncMultiAcquire {

    private final MultiAcquirer steps;
    private final LockClient client;
    private final MultiLockSpec spec;
    private final boolean throwOnTimeout;
    private final CompletableFuture<Optional<MultiLease>> answer = new CompletableFuture<>();
    private final List<LockLease> taken = new ArrayList<>();
    private final List<LockMode> modes = new ArrayList<>();
    private List<LockSpec> parts;
    private long start;
    /** The part request under way, cancelled when the answer is completed by anyone else. */
    private volatile CompletableFuture<?> part;

    AsyncMultiAcquire(MultiAcquirer steps, LockClient client, MultiLockSpec spec, boolean throwOnTimeout) {
        this.steps = steps;
        this.client = client;
        this.spec = spec;
        this.throwOnTimeout = throwOnTimeout;
    }

    CompletableFuture<Optional<MultiLease>> start() {
        answer.whenComplete((lease, failure) -> {
            CompletableFuture<?> asked = part;
            if (asked != null) {
                asked.cancel(false);
            }
        });
        AsyncWaits.executor().execute(this::begin);
        return answer;
    }

    /** The checks and the fast path, then the first part. */
    private void begin() {
        Optional<MultiLease> together;
        try {
            parts = steps.check(spec);
            start = System.nanoTime();
            together = answer.isDone() ? Optional.empty() : steps.atOnce(parts, spec, null);
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
            return;
        }
        if (together.isPresent()) {
            deliver(together.get());
        } else {
            next();
        }
    }

    /** Asks for the next part, or hands over the lease once every part is taken. */
    private void next() {
        if (answer.isDone()) {
            fail(null); // withdrawn between two parts: give back what was taken
            return;
        }
        if (taken.size() == parts.size()) {
            deliver(steps.lease(taken, modes));
            return;
        }
        LockSpec request = MultiAcquirer.request(spec, parts.get(taken.size()), start);
        try {
            if (throwOnTimeout) {
                CompletableFuture<LockLease> asked = client.acquireAsync(request);
                part = asked;
                asked.whenCompleteAsync((lease, failure) -> answered(request, lease, failure), AsyncWaits.executor());
            } else {
                CompletableFuture<Optional<LockLease>> asked = client.tryAcquireAsync(request);
                part = asked;
                asked.whenCompleteAsync((lease, failure) -> answered(request, lease == null ? null : lease.orElse(null),
                        failure), AsyncWaits.executor());
            }
        } catch (RuntimeException | Error e) {
            fail(e);
            return;
        }
        if (answer.isDone()) {
            part.cancel(false);
        }
    }

    /** A part's answer: the next part, or the end of the request (a timeout, a failure, a withdrawal). */
    private void answered(LockSpec request, LockLease lease, Throwable failure) {
        if (failure != null) {
            Throwable cause = LeaseFutures.unwrap(failure);
            fail(cause instanceof LockTimeoutException ? steps.timedOut(spec, request.key(), taken.size()) : cause);
            return;
        }
        if (lease == null) { // the try form: a part not granted in time
            try {
                MultiAcquirer.giveBack(taken);
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
                return;
            } finally {
                taken.clear();
            }
            answer.complete(Optional.empty());
            return;
        }
        taken.add(lease);
        modes.add(request.lockMode());
        next();
    }

    /** Releases every part taken, then fails the answer with {@code cause} (none: it was completed by someone else). */
    private void fail(Throwable cause) {
        Throwable reported = MultiAcquirer.releaseAll(taken, cause);
        if (reported != null) {
            answer.completeExceptionally(reported);
        }
    }

    /** Hands the caller its lease; one it no longer takes (cancelled meanwhile) is closed, never leaked. */
    private void deliver(MultiLease lease) {
        if (!answer.complete(Optional.of(lease))) {
            LeaseFutures.closeQuietly(lease);
        }
    }
}
