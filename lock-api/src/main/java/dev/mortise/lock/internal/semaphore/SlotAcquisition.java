package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.group.GroupLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One acquisition of n permits of a {@link SlotSemaphore}: its state (the count it uses throughout,
 * its owner id, its clock, the slots it holds) and the steps of the loop the class comment of
 * {@link SlotSemaphore} describes — a pass over the slots, giving a short pass back, one turn's wait
 * on one slot. The blocking {@code acquire} and the asynchronous {@code acquireAsync} run the same
 * steps; only the turn's wait differs ({@code tryAcquire} or {@code tryAcquireAsync}). Not
 * thread-safe: its steps run one after another.
 */
final class SlotAcquisition {

    private final SlotSemaphore semaphore;
    private final LockClient client;
    private final int n;
    private final Duration wait;
    private final Duration lease;
    private final boolean throwOnTimeout;
    private final int permits;
    private final String owner;
    private final long start;
    private final int offset;
    private final Map<Integer, LockLease> taken = new TreeMap<>();
    private int turn;
    private int turnSlot;

    /** @throws IllegalArgumentException if {@code n} or {@code wait} is not valid for the semaphore's count */
    SlotAcquisition(SlotSemaphore semaphore, LockClient client, int n, Duration wait, Duration lease,
                    boolean throwOnTimeout) {
        this.permits = semaphore.permits(); // one count for the whole acquisition
        SlotSemaphore.check(client.backendName(), semaphore.name(), permits, n, wait);
        this.semaphore = semaphore;
        this.client = client;
        this.n = n;
        this.wait = wait;
        this.lease = lease;
        this.throwOnTimeout = throwOnTimeout;
        this.owner = "semaphore:" + semaphore.name() + ":" + UUID.randomUUID();
        this.start = System.nanoTime();
        this.offset = ThreadLocalRandom.current().nextInt(permits);
    }

    /** A pass: tries each slot not held yet once, without waiting, from a random slot on. @return whether n are held */
    boolean pass() {
        for (int k = 0; k < permits && taken.size() < n; k++) {
            int slot = (offset + k) % permits;
            if (!taken.containsKey(slot)) {
                client.tryAcquire(spec(slot, Duration.ZERO)).ifPresent(l -> taken.put(slot, l));
            }
        }
        return taken.size() == n;
    }

    /** The n slots held, as one permit lease. */
    PermitLease lease() {
        return new SlotPermitLease(semaphore.name(), client.backendName(), taken);
    }

    /**
     * Gives back a pass that did not get enough (it holds nothing while it waits, so callers asking
     * for several permits cannot deadlock), then the next turn's wait: one slot, a different one each
     * turn, for at most {@link SlotSemaphore#STEP}.
     *
     * @return the turn's request, or null when the wait ran out
     */
    LockSpec nextTurn() {
        giveBack(taken);
        Duration left = wait.minusNanos(System.nanoTime() - start);
        if (left.isNegative() || left.isZero()) {
            return null;
        }
        turnSlot = (offset + turn++) % permits;
        return spec(turnSlot, left.compareTo(SlotSemaphore.STEP) < 0 ? left : SlotSemaphore.STEP);
    }

    /** The slot of the turn's wait was won: kept, and the next pass tries for the rest. */
    void took(LockLease slot) {
        taken.put(turnSlot, slot);
    }

    /** The wait ran out: empty, or {@link LockTimeoutException} for {@code acquire}. */
    Optional<PermitLease> ranOut() {
        if (throwOnTimeout) {
            throw new LockTimeoutException("Could not acquire " + n + " of the " + permits + " permits of semaphore '"
                    + semaphore.name() + "' on backend '" + client.backendName() + "' within " + wait + ": fewer than "
                    + n + " slots (" + semaphore.slotKey(0) + " ...) were free together. None is held now. Wait "
                    + "longer, ask for fewer permits, or find the holders (LockClient.heldLocks on each client lists "
                    + "the slot keys).", semaphore.name(), client.backendName());
        }
        return Optional.empty();
    }

    /** The acquisition ends in {@code failure}: every slot held is released first (failed releases suppressed in it). */
    <X extends Throwable> X failed(X failure) {
        for (RuntimeException release : GroupLease.closeAll(new ArrayList<>(taken.values()), Duration.ZERO)) {
            failure.addSuppressed(release);
        }
        taken.clear();
        return failure;
    }

    /** The acquisition ends without its lease: the slots still held are given back. */
    void abandon() {
        if (!taken.isEmpty()) {
            giveBack(taken);
        }
    }

    private LockSpec spec(int slot, Duration slotWait) {
        LockSpec spec = LockSpec.of(semaphore.slotKey(slot)).waitFor(slotWait).owner(owner);
        return lease == null ? spec : spec.lease(lease);
    }

    /**
     * Releases the slots of a pass that did not get enough. A slot lost meanwhile does not matter
     * (it is given up anyway); a release the server did not get is reported, since that slot then
     * stays taken until its lease runs out.
     */
    private static void giveBack(Map<Integer, LockLease> taken) {
        List<RuntimeException> failures = GroupLease.closeAll(new ArrayList<>(taken.values()), Duration.ZERO);
        taken.clear();
        failures.removeIf(f -> f instanceof LockLostException);
        GroupLease.throwTogether(failures);
    }
}
