package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.AsyncWaits;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One asynchronous single-key acquire: the steps of {@link Acquirer}'s blocking path (it calls the
 * same ones) with the waits turned into callbacks — the key's local gate through
 * {@link KeyGates#enterAsync}, the server through {@link LockBackend#acquireAsync}. No thread is
 * held while it waits; every step after the first runs on {@link AsyncWaits#executor()}.
 *
 * <p>Its answer is completed once. Completed by anyone else (the caller cancels it, the client
 * closes), the acquisition withdraws exactly once from where it is: out of the gate's queue, or
 * its server request cancelled (the backend clears it; a grant racing the cancel is released), or,
 * when the hold was granted and published as the answer was completed, that hold is closed again.
 */
final class AsyncAcquire {

    private final Acquirer acquirer;
    private final KeyGates gates;
    private final LockBackend backend;
    private final ClientSettings settings;
    private final Acquisition a;
    final CompletableFuture<LockLease> answer;
    /** Whether the hold may nest in one of the caller's explicit owner that appears meanwhile. */
    private final boolean explicitOwner;
    private volatile GatePermit.Entry entry;
    private volatile Future<?> gateTimer;
    private volatile Future<?> ownerTimer;
    private volatile CompletableFuture<Optional<Grant>> server;

    AsyncAcquire(Acquirer acquirer, KeyGates gates, LockBackend backend, ClientSettings settings, Acquisition a,
                 CompletableFuture<LockLease> answer) {
        this.acquirer = acquirer;
        this.gates = gates;
        this.backend = backend;
        this.settings = settings;
        this.a = a;
        this.answer = answer;
        this.explicitOwner = a.ownerId() != null;
    }

    /** Queues at the key's gate (or tries it once, for a zero wait); runs on the executor. */
    void start() {
        answer.whenComplete((lease, failure) -> withdraw());
        if (a.waitTime().isZero()) {
            KeyGates.Gate gate;
            try {
                gate = gates.enter(a.key(), a.mode(), 0);
            } catch (InterruptedException e) {
                throw new IllegalStateException("a zero wait never waits", e);
            }
            if (gate == null) {
                notGranted(true);
            } else {
                inGate(gate);
            }
            return;
        }
        GatePermit.Entry queued = gates.enterAsync(a.key(), a.mode());
        entry = queued;
        if (!queued.isDone()) {
            gateTimer = AsyncWaits.scheduler().schedule(() -> AsyncWaits.executor().execute(this::gateTimedOut),
                    Deadlines.left(a.deadline()), TimeUnit.NANOSECONDS);
            if (explicitOwner) {
                ownerTimer = AsyncWaits.scheduler().scheduleWithFixedDelay(
                        () -> AsyncWaits.executor().execute(this::nestIfOwned),
                        Acquirer.OWNER_SLICE_NANOS, Acquirer.OWNER_SLICE_NANOS, TimeUnit.NANOSECONDS);
            }
        }
        queued.whenCompleteAsync((gate, cancelled) -> {
            if (gate != null) {
                inGate(gate);
            }
        }, AsyncWaits.executor());
        if (answer.isDone()) {
            withdraw();
        }
    }

    private void gateTimedOut() {
        if (gates.withdraw(entry)) {
            stopTimers();
            notGranted(true);
        }
    }

    /** An explicit owner's hold granted meanwhile (to a parent task, say): nest in it instead of queueing behind it. */
    private void nestIfOwned() {
        if (answer.isDone() || entry.isDone()) {
            return;
        }
        LockLease nested = acquirer.nestIfOwned(a.key(), null, a.ownerId(), a.mode(), System.nanoTime() - a.start());
        if (nested == null) {
            return;
        }
        if (gates.withdraw(entry)) {
            stopTimers();
            deliver(nested);
        } else {
            nested.close(); // admitted meanwhile: the gate's way goes on, this extra nesting is undone
        }
    }

    /** Asks the server from inside the key's gate. */
    private void inGate(KeyGates.Gate gate) {
        stopTimers();
        if (answer.isDone()) {
            gate.leave(a.mode(), null, null);
            return;
        }
        ask(gate, null, a.lease(settings));
    }

    private void ask(KeyGates.Gate gate, KeyGates.Pending previous, Duration lease) {
        KeyGates.Pending pending = previous;
        try {
            if (acquirer.isClosed()) {
                throw acquirer.clientClosed(a.key(), null);
            }
            LockRequest request = acquirer.request(a, lease);
            pending = gate.expect(pending, request.owner());
            long left = Deadlines.left(a.deadline());
            CompletableFuture<Optional<Grant>> asked = left == 0 || a.waitTime().isZero()
                    ? CompletableFuture.supplyAsync(() -> backend.tryAcquire(request).grant(), AsyncWaits.executor())
                    : backend.acquireAsync(request, Duration.ofNanos(left));
            server = asked;
            KeyGates.Pending sent = pending;
            asked.whenCompleteAsync((grant, failure) -> answered(gate, sent, lease, grant, failure),
                    AsyncWaits.executor());
            if (answer.isDone()) {
                asked.cancel(false);
            }
        } catch (RuntimeException e) {
            gate.leave(a.mode(), pending, null);
            fail(acquirer.failed(a, e));
        }
    }

    /**
     * The server's answer: a published hold handed to the caller, a retry of a late grant, or nothing.
     * Without a hold the gate is left before the answer is given, so whatever the caller does on it
     * (ask again at once) finds the gate free.
     */
    private void answered(KeyGates.Gate gate, KeyGates.Pending pending, Duration lease, Optional<Grant> grant,
                          Throwable failure) {
        boolean gateHandled = false; // published, asked again, or left: not to be left again below
        try {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof CancellationException || answer.isDone()) {
                    return; // withdrawn: the backend cleared the request, the answer is given
                }
                throw acquirer.serverFailure(a.key(), cause);
            }
            if (grant.isEmpty()) {
                gate.leave(a.mode(), pending, null);
                gateHandled = true;
                notGranted(false);
                return;
            }
            Hold hold = acquirer.holdFor(a, gate, grant.get(), lease);
            if (hold == null) {
                gateHandled = true; // the gate stays ours for the next request
                ask(gate, pending, lease);
                return;
            }
            KeyGates.EarlyState early = gate.publish(pending, hold);
            gateHandled = true;
            deliver(acquirer.activate(hold, early, gate, pending, a.key(), a.start()));
        } catch (RuntimeException e) {
            if (!gateHandled) {
                gateHandled = true;
                gate.leave(a.mode(), pending, null);
            }
            fail(acquirer.failed(a, e));
        } finally {
            if (!gateHandled) {
                gate.leave(a.mode(), pending, null);
            }
        }
    }

    private void notGranted(boolean queued) {
        try {
            deliver(acquirer.notGranted(a.key(), a.mode(), a.waitTime(), a.start(), a.throwOnTimeout(), queued));
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    /**
     * Hands the caller its lease (or null), on no thread's {@link dev.mortise.lock.LockContext}; a lease the
     * caller no longer takes is closed, never leaked.
     */
    private void deliver(LockLease lease) {
        if (!answer.complete(lease) && lease != null) {
            try {
                lease.close();
            } catch (RuntimeException ignored) {
                // Already lost: nothing is held on the server for it.
            }
        }
    }

    String key() {
        return a.key();
    }

    private void fail(RuntimeException e) {
        answer.completeExceptionally(e);
    }

    /** The answer was completed: leave the gate's queue, or stop the server request, if still there. */
    private void withdraw() {
        stopTimers();
        GatePermit.Entry queued = entry;
        if (queued != null && !queued.isDone()) {
            gates.withdraw(queued);
        }
        CompletableFuture<Optional<Grant>> asked = server;
        if (asked != null) {
            asked.cancel(false);
        }
    }

    private void stopTimers() {
        Future<?> timer = gateTimer;
        if (timer != null) {
            timer.cancel(false);
        }
        Future<?> owner = ownerTimer;
        if (owner != null) {
            owner.cancel(false);
        }
    }
}
