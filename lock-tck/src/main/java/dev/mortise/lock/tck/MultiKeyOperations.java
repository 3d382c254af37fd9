package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.tck.FaultInjectingBackend.Fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static dev.mortise.lock.tck.PropertyWorker.fault;
import static dev.mortise.lock.tck.PropertyWorker.injected;
import static dev.mortise.lock.tck.PropertyWorker.stackOf;

/**
 * The multi-key operations of one {@link PropertyWorker}: takes 2 or 3 overlapping keys at once
 * through every entry point, extends and closes such leases, and tells the model's
 * {@link MultiLeaseChecks} what it was given. Used by its worker's thread only.
 */
final class MultiKeyOperations {

    private final PropertyWorker worker;
    private final int id;
    private final ValidityPropertySuite suite;
    private final PropertyModel model;
    private final PropertyLeases leases;
    private final Random random;
    /** Multi-key leases the worker holds; their parts are not in its single-key leases. */
    private final List<TrackedMulti> multis = new ArrayList<>();

    MultiKeyOperations(PropertyWorker worker) {
        this.worker = worker;
        this.id = worker.id;
        this.suite = worker.suite;
        this.model = worker.model;
        this.leases = worker.leases;
        this.random = worker.random;
    }

    /** The parts of every multi-key lease the worker holds. */
    List<TrackedLease> heldParts() {
        List<TrackedLease> parts = new ArrayList<>();
        for (TrackedMulti multi : multis) {
            parts.addAll(multi.parts);
        }
        return parts;
    }

    /** Closes every multi-key lease the worker holds, the last taken first. */
    void releaseAll() {
        while (!multis.isEmpty()) {
            releaseMulti(multis.remove(multis.size() - 1));
        }
    }

    /** Closes, extends or (most often) takes a multi-key lease. */
    void step(PropertyClient client, boolean explicit) {
        int roll = random.nextInt(10);
        if (!multis.isEmpty() && (roll < 3 || multis.size() >= 3)) {
            releaseMulti(multis.remove(random.nextInt(multis.size())));
        } else if (!multis.isEmpty() && roll < 5 && suite.settings().runs("extend")) {
            extendMulti(multis.get(random.nextInt(multis.size())));
        } else {
            acquireMulti(client, explicit);
        }
    }

    /**
     * Takes 2 or 3 random keys at once (hot keys often, so sets overlap with other workers' and
     * with this worker's own holds, which makes nested parts), now and then a key twice (in
     * both modes, which must give one exclusive part), mixed modes where the backend supports
     * shared holds, a renewed or an explicit lease, waiting or trying, through each entry point.
     */
    private void acquireMulti(PropertyClient client, boolean explicit) {
        int count = 2 + random.nextInt(2);
        List<String> names = new ArrayList<>();
        List<LockMode> askedModes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(worker.key());
            askedModes.add(worker.mode());
        }
        if (random.nextInt(5) == 0) {
            int again = random.nextInt(count);
            names.add(names.get(again));
            askedModes.add(worker.mode());
        }
        Map<String, LockMode> modes = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            modes.merge(names.get(i), askedModes.get(i), (a, b) -> a == LockMode.EXCLUSIVE || b == LockMode.EXCLUSIVE
                    ? LockMode.EXCLUSIVE : LockMode.SHARED);
        }
        boolean anyShared = modes.containsValue(LockMode.SHARED);
        Duration explicitLease = explicit && random.nextInt(3) == 0
                ? (random.nextBoolean() ? leases.explicitShort(random) : leases.explicitLong(random)) : null;
        Duration wait = worker.waitTime();
        boolean tryOnly = random.nextInt(3) == 0;
        // The key-list entry points take exclusive parts and the renewed lease only.
        boolean byList = !anyShared && explicitLease == null && random.nextBoolean();
        MultiLockSpec spec = null;
        if (!byList) {
            if (random.nextBoolean()) {
                List<LockSpec> parts = new ArrayList<>();
                for (int i = 0; i < names.size(); i++) {
                    parts.add(LockSpec.of(names.get(i)).mode(askedModes.get(i)));
                }
                spec = MultiLockSpec.ofSpecs(parts);
            } else {
                spec = MultiLockSpec.of(List.of());
                for (int i = 0; i < names.size(); i++) {
                    spec = askedModes.get(i) == LockMode.SHARED ? spec.shared(names.get(i)) : spec.exclusive(names.get(i));
                }
            }
            spec = spec.waitFor(wait);
            if (explicitLease != null) {
                spec = spec.lease(explicitLease);
                suite.leaseUsed(explicitLease);
            }
        }
        String asked = names + (anyShared ? " modes " + askedModes : "");
        String op = (tryOnly ? "tryAcquireAll" : "acquireAll") + "(" + (byList ? "keys" : "spec")
                + (explicitLease == null ? ", renewed" : ", explicit") + (anyShared ? ", mixed modes" : "") + ")";
        Map<String, Long> floors = new HashMap<>();
        for (String key : modes.keySet()) {
            floors.put(key, model.tokenFloor(key));
        }
        long start = System.nanoTime();
        MultiLease lease = call(client, names, modes, spec, wait, tryOnly, byList, op, asked);
        if (lease == null) {
            return;
        }
        suite.count(op + " granted");
        Duration blocking = random.nextInt(20) == 0 && suite.settings().runs("blocking")
                ? Duration.ofMillis(100 + random.nextInt(900)) : null;
        multis.add(model.multis.granted(lease, client, id, modes, op + " of " + asked, explicitLease, start, floors,
                blocking));
    }

    /**
     * Makes the multi-key call; returns its lease, or null when it was busy, timed out or failed as
     * the contract allows (counted), or failed otherwise (a violation of (f)).
     */
    private MultiLease call(PropertyClient client, List<String> names, Map<String, LockMode> modes, MultiLockSpec spec,
                            Duration wait, boolean tryOnly, boolean byList, String op, String asked) {
        MultiLease lease;
        try {
            if (!byList) {
                Optional<MultiLease> maybe = worker.calls.multi(client, spec, tryOnly, op);
                if (maybe == null) {
                    return null; // cancelled part-way (counted)
                }
                if (maybe.isEmpty()) {
                    suite.count(op + " busy");
                    return null;
                }
                lease = maybe.get();
            } else if (tryOnly) {
                Optional<MultiLease> maybe = wait.isZero() && random.nextBoolean() ? client.client.tryAcquireAll(names)
                        : client.client.tryAcquireAll(names, wait);
                if (maybe.isEmpty()) {
                    suite.count(op + " busy");
                    return null;
                }
                lease = maybe.get();
            } else {
                lease = client.client.acquireAll(names, wait);
            }
        } catch (dev.mortise.lock.LockDeadlockException e) {
            // random nested orders deadlock for real; the deadlock suite checks each report against
            // the true wait-for graph (DeadlockPropertyRun), this one that nothing of it is held
            suite.count(op + " deadlock victim");
            return null;
        } catch (LockTimeoutException e) {
            suite.count(op + " timeout");
            return null;
        } catch (LockBackendException e) {
            suite.count(op + (injected(e) ? " injected failure" : " backend failure"));
            return null;
        } catch (IllegalStateException e) {
            boolean upgrade = false;
            for (Map.Entry<String, LockMode> part : modes.entrySet()) {
                upgrade |= part.getValue() == LockMode.EXCLUSIVE && worker.holdsShared(client, part.getKey());
            }
            if (upgrade && e.getMessage() != null && e.getMessage().contains("upgrading")) {
                suite.count(op + " refused as an upgrade");
            } else {
                worker.expectClosed(client, op, e);
            }
            return null;
        } catch (LockInterruptedException e) {
            if (client.closeStarted()) {
                suite.count(op + " stopped by client close");
            } else if (!suite.stopping()) {
                suite.violations().add("f", op + " of " + asked + " was interrupted though nobody interrupted it: " + e);
            }
            return null;
        } catch (dev.mortise.lock.LockException e) {
            if (client.closeStarted() && e.getMessage() != null && e.getMessage().contains("was closed")) {
                suite.count(op + " stopped by client close");
            } else {
                suite.violations().add("f", op + " of " + asked + " by " + client + " threw " + stackOf(e));
            }
            return null;
        } catch (RuntimeException e) {
            suite.violations().add("f", op + " of " + asked + " by " + client + " threw " + stackOf(e));
            return null;
        }
        return lease;
    }

    /** Extends every part of a multi-key lease; a failure is told per part, by the key it names. */
    private void extendMulti(TrackedMulti multi) {
        Duration to = random.nextBoolean() ? leases.explicitShort(random) : leases.explicitLong(random);
        suite.leaseUsed(to);
        long start = System.nanoTime();
        String what = "extend of multi#" + multi.id + " to " + to.toMillis() + " ms sent +" + model.millisSinceStart(start)
                + " ms";
        for (TrackedLease part : multi.parts) {
            part.hold.extendsInFlight.incrementAndGet();
        }
        try {
            multi.lease.extend(to);
            for (TrackedLease part : multi.parts) {
                part.hold.note(what + worker.answered() + "ok");
            }
            suite.count("multi extend ok");
        } catch (RuntimeException e) {
            Map<TrackedLease, RuntimeException> failed = byPart(multi, e, "extend(" + to.toMillis() + " ms)");
            for (TrackedLease part : multi.parts) {
                RuntimeException failure = failed.get(part);
                if (failure == null) {
                    part.hold.note(what + worker.answered() + "ok (the whole failed)");
                } else if (failure instanceof LockLostException lost) {
                    part.hold.note(what + worker.answered() + "lost (" + lost.reason() + ")");
                    model.losses.lossDue(part, System.nanoTime(), "extend() of its multi-key lease threw LockLostException "
                            + "for it (" + lost.reason() + ")");
                } else {
                    part.hold.note(what + worker.answered() + fault(failure));
                    if (!fault(failure).equals("injected " + Fault.FAIL)) {
                        part.hold.extendOutcomeUnknown = true;
                    }
                }
            }
            suite.count("multi extend" + (e instanceof LockLostException ? " lost"
                    : injected(e) ? " injected failure" : " backend failure"));
        } finally {
            for (TrackedLease part : multi.parts) {
                part.hold.extendsInFlight.decrementAndGet();
            }
        }
    }

    /** Closes a multi-key lease; a failure is told per part, by the key it names. */
    private void releaseMulti(TrackedMulti multi) {
        List<Boolean> valid = new ArrayList<>();
        for (TrackedLease part : multi.parts) {
            valid.add(part.lease.isValid());
        }
        List<Boolean> last = model.multis.closing(multi);
        String what = "close of multi#" + multi.id + " at +" + model.millisSinceStart(System.nanoTime()) + " ms: ";
        Map<TrackedLease, RuntimeException> failed = Map.of();
        try {
            if (random.nextInt(4) == 0) {
                multi.lease.closeLingering(Duration.ZERO);
            } else {
                multi.lease.close();
            }
            suite.count("multi close ok");
        } catch (RuntimeException e) {
            failed = byPart(multi, e, "close()");
            suite.count("multi close" + (e instanceof LockLostException ? " lost"
                    : injected(e) ? " injected failure" : " backend failure"));
        }
        for (int i = 0; i < multi.parts.size(); i++) {
            TrackedLease part = multi.parts.get(i);
            RuntimeException failure = failed.get(part);
            if (failure == null) {
                part.hold.note(what + "ok (valid " + valid.get(i) + ")");
                model.losses.closedNormally(part, valid.get(i), last.get(i));
            } else if (failure instanceof LockLostException lost) {
                part.hold.note(what + "lost (" + lost.reason() + ")");
                model.losses.closedLost(part);
            } else {
                part.hold.note(what + fault(failure));
            }
        }
        if (multi.lease.isValid()) {
            suite.violations().add("g", multi + " reports isValid() == true after its close()");
        }
    }

    /**
     * The failures of a multi-key call (the thrown one and those suppressed into it), by the part
     * whose key each names. A failure that is not a lock exception, or names no part, breaks (f).
     */
    private Map<TrackedLease, RuntimeException> byPart(TrackedMulti multi, RuntimeException thrown, String call) {
        Map<TrackedLease, RuntimeException> byPart = new HashMap<>();
        List<Throwable> all = new ArrayList<>();
        all.add(thrown);
        all.addAll(List.of(thrown.getSuppressed()));
        for (Throwable failure : all) {
            TrackedLease part = failure instanceof dev.mortise.lock.LockException e && e.key() != null
                    ? multi.part(e.key()) : null;
            boolean expected = failure instanceof LockLostException || failure instanceof LockBackendException;
            if (part == null || !expected) {
                suite.violations().add("f", call + " of " + multi + " threw " + stackOf(failure));
            } else if (!(byPart.get(part) instanceof LockLostException)) {
                // A part's own LockLostException may carry its failed release suppressed: the loss is what counts.
                byPart.put(part, (RuntimeException) failure);
            }
        }
        return byPart;
    }
}
