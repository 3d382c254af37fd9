package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.internal.group.GroupLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * All-or-nothing acquisition of several keys over the public {@link LockClient} API of the core
 * client, behind {@link LockClient#acquireAll} and {@link LockClient#tryAcquireAll}.
 *
 * <p>Fast path first: when no part is in use in the client and the backend batches
 * ({@link dev.mortise.lock.spi.LockBackend#tryAcquireAll}), every part is tried in one
 * all-or-nothing request ({@link BatchAcquirer#attemptAll}); it never waits, so it cannot deadlock.
 * Otherwise, or when it found a part busy, parts are taken one by one in the canonical order of
 * {@link MultiLockSpec#parts()} (one acquire per key), each waiting for what is left of the
 * request's one deadline. The first part that is not granted in time, or an
 * interrupt or failure on the way, releases every part taken so far, in reverse order, before the
 * caller hears of it: nothing is held and nothing is left on the server (each part's own acquire
 * already cleans up after itself). Because every client takes keys in the same total order, two
 * callers with overlapping sets never wait for each other in a cycle.
 */
final class MultiAcquirer {

    /** The core client: each part is one of its ordinary acquires. */
    private final LockClient client;
    private final BatchAcquirer batch;

    MultiAcquirer(LockClient client, BatchAcquirer batch) {
        this.client = client;
        this.batch = batch;
    }

    /**
     * Takes every part or none, waiting up to the spec's wait.
     *
     * @throws dev.mortise.lock.LockTimeoutException if a part was not granted in time (nothing is held)
     */
    MultiLease acquire(MultiLockSpec spec) {
        return take(spec, true).orElseThrow();
    }

    /**
     * Takes every part or none, waiting up to the spec's wait.
     *
     * @return empty if a part was not granted in time (nothing is held)
     */
    Optional<MultiLease> tryAcquire(MultiLockSpec spec) {
        return take(spec, false);
    }

    /**
     * {@link #acquire} or {@link #tryAcquire} ({@code throwOnTimeout} false) without a thread waiting:
     * the same steps, each part through the client's {@code acquireAsync} (see {@link AsyncMultiAcquire}).
     *
     * @return the multi-key lease, empty if a part was not granted in time and {@code throwOnTimeout} is
     *         false, or a future completed exceptionally as the blocking forms throw
     */
    CompletableFuture<Optional<MultiLease>> acquireAsync(MultiLockSpec spec, boolean throwOnTimeout) {
        return new AsyncMultiAcquire(this, client, spec, throwOnTimeout).start();
    }

    private Optional<MultiLease> take(MultiLockSpec spec, boolean throwOnTimeout) {
        List<LockSpec> parts = check(spec);
        long start = System.nanoTime();
        Optional<MultiLease> together = atOnce(parts, spec, Thread.currentThread());
        if (together.isPresent()) {
            return together;
        }
        List<LockLease> taken = new ArrayList<>(parts.size());
        List<LockMode> modes = new ArrayList<>(parts.size());
        boolean complete = false;
        try {
            for (LockSpec part : parts) {
                LockSpec request = request(spec, part, start);
                LockLease lease;
                if (throwOnTimeout) {
                    try {
                        lease = client.acquire(request);
                    } catch (LockTimeoutException e) {
                        throw timedOut(spec, part.key(), taken.size());
                    }
                } else {
                    Optional<LockLease> granted = client.tryAcquire(request);
                    if (granted.isEmpty()) {
                        return Optional.empty();
                    }
                    lease = granted.get();
                }
                taken.add(lease);
                modes.add(part.lockMode());
            }
            complete = true;
            return Optional.of(lease(taken, modes));
        } catch (RuntimeException | Error failure) {
            releaseAll(taken, failure);
            throw failure;
        } finally {
            if (!complete && !taken.isEmpty()) {
                giveBack(taken);
            }
        }
    }

    /** The request for {@code part}: one deadline for the whole request, so each part waits only for what is left of it. */
    static LockSpec request(MultiLockSpec spec, LockSpec part, long start) {
        Duration left = spec.waitTime().minusNanos(System.nanoTime() - start);
        return part.waitFor(left.isNegative() ? Duration.ZERO : left).lease(spec.explicitLease())
                .owner(spec.explicitOwner());
    }

    /** The multi-key lease of the parts taken, in canonical order. */
    MultiLease lease(List<LockLease> taken, List<LockMode> modes) {
        return new DefaultMultiLease(client.backendName(), taken, modes);
    }

    /**
     * The fast path: every part in one backend request, when no part is in use in this client and
     * the backend batches natively. Empty when it did not apply or a part was busy: nothing of it is
     * held then, and the ordered path goes on with what is left of the wait.
     *
     * @param thread the thread that owns the holds without an explicit owner; null for an async request
     */
    Optional<MultiLease> atOnce(List<LockSpec> parts, MultiLockSpec spec, Thread thread) {
        List<String> keys = new ArrayList<>(parts.size());
        List<LockMode> modes = new ArrayList<>(parts.size());
        for (LockSpec part : parts) {
            keys.add(part.key());
            modes.add(part.lockMode());
        }
        List<LockLease> leases = batch.attemptAll(keys, modes, spec.waitTime(), spec.explicitLease(),
                spec.explicitOwner(), thread);
        return leases == null ? Optional.empty() : Optional.of(lease(leases, modes));
    }

    /**
     * Releases every part taken of a request that ends in {@code failure} (null: none to report),
     * which carries the releases that failed as suppressed; the list is cleared.
     */
    static <X extends Throwable> X releaseAll(List<LockLease> taken, X failure) {
        for (RuntimeException release : GroupLease.closeAll(taken, Duration.ZERO)) {
            if (failure != null) {
                failure.addSuppressed(release);
            }
        }
        taken.clear();
        return failure;
    }

    /**
     * Releases the parts of a request that was not granted in full. A part lost meanwhile does
     * not matter (it is given up anyway); a release the server did not get is reported, since the
     * hold then lasts until its lease runs out.
     */
    static void giveBack(List<LockLease> taken) {
        List<RuntimeException> failures = GroupLease.closeAll(taken, Duration.ZERO);
        failures.removeIf(f -> f instanceof LockLostException);
        GroupLease.throwTogether(failures);
    }

    List<LockSpec> check(MultiLockSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("MultiLockSpec must not be null (backend '" + client.backendName() + "')");
        }
        List<LockSpec> parts = spec.parts();
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("A multi-key lock needs at least one key, got none (backend '"
                    + client.backendName() + "'): an empty set would lock nothing and exclude no one. Pass the keys "
                    + "to lock, or skip the lock when there is nothing to protect");
        }
        Duration wait = spec.waitTime();
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("Wait time for the multi-key lock " + spec.keys()
                    + " must be zero or positive, was " + wait + " (backend '" + client.backendName()
                    + "'): pass Duration.ZERO to try each key once");
        }
        return parts;
    }

    LockTimeoutException timedOut(MultiLockSpec spec, String busy, int taken) {
        return new LockTimeoutException("Could not lock all of " + spec.keys() + " on backend '"
                + client.backendName() + "' within " + spec.waitTime() + ": '" + busy + "' was still held by another "
                + "owner after " + taken + " of " + spec.keys().size() + " keys were taken. None is held now (the "
                + "keys taken were released). Wait longer (MultiLockSpec.waitFor), or find the holder of '" + busy
                + "'.", busy, client.backendName());
    }
}
