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
import dev.mortise.lock.tck.FaultInjectingBackend.Injection;
import dev.mortise.lock.tck.FaultInjectingBackend.Operation;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One thread of one client slot in the property suite: runs random sequences of
 * operations (acquire with a renewed or explicit lease, tryAcquire, nested acquire,
 * extend, release, fault windows, server-side deletion, closing and replacing its
 * client) over many leases at once, and tells the {@link PropertyModel} what it was given.
 * Its choices come from its own seeded {@link Random}, so a seed replays the same
 * programs (thread timing aside).
 */
final class PropertyWorker implements Runnable {

    private final int id;
    private final int slot;
    private final ValidityPropertySuite suite;
    private final PropertyModel model;
    private final PropertyLeases leases;
    private final List<String> keys;
    private final Random random;
    private final int targetHeld;
    private final List<TrackedLease> held = new ArrayList<>();
    /** Multi-key leases this worker holds; their parts are not in {@link #held}. */
    private final List<TrackedMulti> multis = new ArrayList<>();

    PropertyWorker(int id, int slot, ValidityPropertySuite suite, PropertyModel model, PropertyLeases leases,
                   List<String> keys, long seed) {
        this.id = id;
        this.slot = slot;
        this.suite = suite;
        this.model = model;
        this.leases = leases;
        this.keys = keys;
        this.random = new Random(seed);
        this.targetHeld = 3 + random.nextInt(13);
    }

    @Override
    public void run() {
        try {
            while (suite.takeSequence()) {
                int steps = 2 + random.nextInt(6);
                for (int i = 0; i < steps && !suite.stopping(); i++) {
                    step();
                }
            }
            if (random.nextBoolean()) {
                // Half the workers tidy up; the others leave their leases for client close() to end.
                while (!held.isEmpty()) {
                    release(held.remove(held.size() - 1));
                }
                while (!multis.isEmpty()) {
                    releaseMulti(multis.remove(multis.size() - 1));
                }
            }
        } catch (Throwable t) {
            suite.violations().add("f", "worker " + id + " died: " + stackOf(t));
        }
    }

    private void step() {
        PropertyClient client = suite.client(slot);
        int roll = random.nextInt(100);
        if (held.size() >= targetHeld && roll < 50) {
            release(held.remove(random.nextInt(held.size())));
            return;
        }
        ValidityPropertySuite.Settings settings = suite.settings();
        boolean explicit = settings.runs("explicit");
        if (roll < 16) {
            acquire(client, key(), null, waitTime(), false, mode());
        } else if (roll < 24 && explicit) {
            acquire(client, key(), leases.explicitShort(random), waitTime(), false, mode());
        } else if (roll < 30 && explicit) {
            acquire(client, key(), leases.explicitLong(random), waitTime(), false, mode());
        } else if (roll >= 30 && roll < 38) {
            acquire(client, key(), random.nextBoolean() || !explicit ? null : leases.explicitShort(random), Duration.ZERO,
                    true, mode());
        } else if (roll >= 38 && roll < 43) {
            acquire(client, key(), null, waitTime(), true, mode());
        } else if (roll >= 43 && roll < 50 && settings.runs("nested")) {
            nested(client, explicit);
        } else if (roll >= 50 && roll < 60 && settings.runs("extend")) {
            extend();
        } else if (roll >= 60 && roll < 78) {
            if (!held.isEmpty()) {
                release(held.remove(random.nextInt(held.size())));
            }
        } else if (roll >= 78 && roll < 85 && settings.runs("multikey")) {
            // Only here is randomness drawn for multi-key work: with it left out, a seed runs as before.
            multiKey(client, explicit);
        } else if (roll >= 85 && roll < 90 && settings.runs("faults")) {
            renewalFaultWindow(client);
        } else if (roll >= 90 && roll < 95 && settings.runs("faults")) {
            replyFault(client);
        } else if (roll >= 95 && roll < 98 && settings.runs("forget")) {
            forget();
        } else if (roll >= 98 && settings.runs("close")) {
            suite.replaceClient(client, random);
        } else {
            PropertyModel.sleep(Duration.ofMillis(random.nextInt(150)));
        }
    }

    /** Hot keys are picked more often, so clients contend. */
    private String key() {
        int hot = Math.min(keys.size(), 6);
        return random.nextInt(3) == 0 ? keys.get(random.nextInt(hot)) : keys.get(random.nextInt(keys.size()));
    }

    /** Exclusive, or shared one time in three where the backend supports it. */
    private LockMode mode() {
        return suite.sharedMode() && random.nextInt(3) == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
    }

    private Duration waitTime() {
        int roll = random.nextInt(4);
        return roll == 0 ? Duration.ZERO : Duration.ofMillis(random.nextInt(roll == 3 ? 1500 : 400));
    }

    private void acquire(PropertyClient client, String key, Duration explicitLease, Duration wait, boolean tryOnly,
                         LockMode mode) {
        long floor = model.tokenFloor(key);
        long start = System.nanoTime();
        LockLease lease;
        boolean shared = mode == LockMode.SHARED;
        String op = (tryOnly ? "tryAcquire" : "acquire") + (explicitLease == null ? "(renewed" : "(explicit")
                + (shared ? ", shared)" : ")");
        try {
            LockSpec spec = LockSpec.of(key).waitFor(wait).mode(mode);
            if (explicitLease != null) {
                spec = spec.lease(explicitLease);
                suite.leaseUsed(explicitLease);
            }
            if (tryOnly) {
                Optional<LockLease> maybe = explicitLease == null && !shared && random.nextBoolean()
                        ? (wait.isZero() ? client.client.tryAcquire(key) : client.client.tryAcquire(key, wait))
                        : client.client.tryAcquire(spec);
                if (maybe.isEmpty()) {
                    suite.count(op + " busy");
                    return;
                }
                lease = maybe.get();
            } else {
                lease = explicitLease == null && !shared && random.nextBoolean() ? client.client.acquire(key, wait)
                        : client.client.acquire(spec);
            }
        } catch (LockTimeoutException e) {
            suite.count(op + " timeout");
            return;
        } catch (LockBackendException e) {
            suite.count(op + (injected(e) ? " injected failure" : " backend failure"));
            return;
        } catch (IllegalStateException e) {
            if (!shared && holdsShared(client, key) && e.getMessage() != null && e.getMessage().contains("upgrading")) {
                suite.count(op + " refused as an upgrade");
            } else {
                expectClosed(client, op, e);
            }
            return;
        } catch (LockInterruptedException e) {
            if (client.closeStarted()) {
                suite.count(op + " stopped by client close");
                return;
            }
            if (!suite.stopping()) {
                suite.violations().add("f", op + " on '" + PropertyModel.show(key) + "' was interrupted though nobody "
                        + "interrupted it: " + e);
            }
            return;
        } catch (dev.mortise.lock.LockException e) {
            // The contract of close(): acquires under way fail with a LockException saying so.
            if (client.closeStarted() && e.getMessage() != null && e.getMessage().contains("was closed")) {
                suite.count(op + " stopped by client close");
            } else {
                suite.violations().add("f", op + " on '" + PropertyModel.show(key) + "' by " + client + " threw "
                        + stackOf(e));
            }
            return;
        } catch (RuntimeException e) {
            suite.violations().add("f", op + " on '" + PropertyModel.show(key) + "' by " + client + " threw "
                    + stackOf(e));
            return;
        }
        suite.count(op + " granted");
        Duration blocking = random.nextInt(20) == 0 && suite.settings().runs("blocking")
                ? Duration.ofMillis(100 + random.nextInt(900)) : null;
        held.add(model.granted(lease, client, id, key, explicitLease, start, floor, blocking));
    }

    private void nested(PropertyClient client, boolean explicit) {
        List<TrackedLease> mine = new ArrayList<>();
        for (TrackedLease lease : held) {
            if (lease.hold.client == client) {
                mine.add(lease);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        TrackedLease outer = mine.get(random.nextInt(mine.size()));
        // Read inside read, read inside write, write inside write; now and then write inside read,
        // which must be refused at once as an upgrade.
        LockMode mode = outer.hold.mode == LockMode.SHARED && random.nextInt(8) != 0 ? LockMode.SHARED : mode();
        acquire(client, outer.key(), random.nextBoolean() || !explicit ? null : leases.explicitShort(random),
                Duration.ofMillis(random.nextInt(300)), random.nextBoolean(), mode);
    }

    /** Whether this worker has an open lease (alone or as a part) on a shared hold of {@code key} from {@code client}. */
    private boolean holdsShared(PropertyClient client, String key) {
        List<TrackedLease> mine = new ArrayList<>(held);
        for (TrackedMulti multi : multis) {
            mine.addAll(multi.parts);
        }
        for (TrackedLease lease : mine) {
            if (lease.hold.client == client && lease.key().equals(key) && lease.hold.mode == LockMode.SHARED
                    && !lease.closeStarted) {
                return true;
            }
        }
        return false;
    }

    // ---- multi-key leases ---------------------------------------------------------------------

    /** Closes, extends or (most often) takes a multi-key lease. */
    private void multiKey(PropertyClient client, boolean explicit) {
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
            names.add(key());
            askedModes.add(mode());
        }
        if (random.nextInt(5) == 0) {
            int again = random.nextInt(count);
            names.add(names.get(again));
            askedModes.add(mode());
        }
        Map<String, LockMode> modes = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            modes.merge(names.get(i), askedModes.get(i), (a, b) -> a == LockMode.EXCLUSIVE || b == LockMode.EXCLUSIVE
                    ? LockMode.EXCLUSIVE : LockMode.SHARED);
        }
        boolean anyShared = modes.containsValue(LockMode.SHARED);
        Duration explicitLease = explicit && random.nextInt(3) == 0
                ? (random.nextBoolean() ? leases.explicitShort(random) : leases.explicitLong(random)) : null;
        Duration wait = waitTime();
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
        MultiLease lease;
        try {
            if (tryOnly) {
                Optional<MultiLease> maybe = byList
                        ? (wait.isZero() && random.nextBoolean() ? client.client.tryAcquireAll(names)
                        : client.client.tryAcquireAll(names, wait))
                        : client.client.tryAcquireAll(spec);
                if (maybe.isEmpty()) {
                    suite.count(op + " busy");
                    return;
                }
                lease = maybe.get();
            } else {
                lease = byList ? client.client.acquireAll(names, wait) : client.client.acquireAll(spec);
            }
        } catch (LockTimeoutException e) {
            suite.count(op + " timeout");
            return;
        } catch (LockBackendException e) {
            suite.count(op + (injected(e) ? " injected failure" : " backend failure"));
            return;
        } catch (IllegalStateException e) {
            boolean upgrade = false;
            for (Map.Entry<String, LockMode> part : modes.entrySet()) {
                upgrade |= part.getValue() == LockMode.EXCLUSIVE && holdsShared(client, part.getKey());
            }
            if (upgrade && e.getMessage() != null && e.getMessage().contains("upgrading")) {
                suite.count(op + " refused as an upgrade");
            } else {
                expectClosed(client, op, e);
            }
            return;
        } catch (LockInterruptedException e) {
            if (client.closeStarted()) {
                suite.count(op + " stopped by client close");
            } else if (!suite.stopping()) {
                suite.violations().add("f", op + " of " + asked + " was interrupted though nobody interrupted it: " + e);
            }
            return;
        } catch (dev.mortise.lock.LockException e) {
            if (client.closeStarted() && e.getMessage() != null && e.getMessage().contains("was closed")) {
                suite.count(op + " stopped by client close");
            } else {
                suite.violations().add("f", op + " of " + asked + " by " + client + " threw " + stackOf(e));
            }
            return;
        } catch (RuntimeException e) {
            suite.violations().add("f", op + " of " + asked + " by " + client + " threw " + stackOf(e));
            return;
        }
        suite.count(op + " granted");
        Duration blocking = random.nextInt(20) == 0 && suite.settings().runs("blocking")
                ? Duration.ofMillis(100 + random.nextInt(900)) : null;
        multis.add(model.multis.granted(lease, client, id, modes, op + " of " + asked, explicitLease, start, floors,
                blocking));
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
                part.hold.note(what + answered() + "ok");
            }
            suite.count("multi extend ok");
        } catch (RuntimeException e) {
            Map<TrackedLease, RuntimeException> failed = byPart(multi, e, "extend(" + to.toMillis() + " ms)");
            for (TrackedLease part : multi.parts) {
                RuntimeException failure = failed.get(part);
                if (failure == null) {
                    part.hold.note(what + answered() + "ok (the whole failed)");
                } else if (failure instanceof LockLostException lost) {
                    part.hold.note(what + answered() + "lost (" + lost.reason() + ")");
                    model.losses.lossDue(part, System.nanoTime(), "extend() of its multi-key lease threw LockLostException "
                            + "for it (" + lost.reason() + ")");
                } else {
                    part.hold.note(what + answered() + fault(failure));
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

    private void extend() {
        if (held.isEmpty()) {
            return;
        }
        TrackedLease lease = held.get(random.nextInt(held.size()));
        Duration to = random.nextBoolean() ? leases.explicitShort(random) : leases.explicitLong(random);
        suite.leaseUsed(to);
        long start = System.nanoTime();
        String what = "extend to " + to.toMillis() + " ms sent +" + model.millisSinceStart(start) + " ms";
        lease.hold.extendsInFlight.incrementAndGet();
        try {
            lease.lease.extend(to);
            lease.hold.note(what + answered() + "ok");
            suite.count("extend ok");
        } catch (LockLostException e) {
            suite.count("extend lost");
            lease.hold.note(what + answered() + "lost (" + e.reason() + ")");
            model.losses.lossDue(lease, System.nanoTime(), "extend() threw LockLostException (" + e.reason() + ")");
        } catch (LockBackendException e) {
            lease.hold.note(what + answered() + fault(e));
            if (!fault(e).equals("injected " + Fault.FAIL)) {
                lease.hold.extendOutcomeUnknown = true;
            }
            suite.count("extend" + (injected(e) ? " injected failure" : " backend failure"));
        } catch (RuntimeException e) {
            suite.violations().add("f", "extend(" + to.toMillis() + " ms) of " + lease + " threw " + stackOf(e));
        } finally {
            lease.hold.extendsInFlight.decrementAndGet();
        }
    }

    private String answered() {
        return ", answered +" + model.millisSinceStart(System.nanoTime()) + " ms: ";
    }

    private void release(TrackedLease lease) {
        boolean valid = lease.lease.isValid();
        model.losses.observe(lease);
        boolean last = model.losses.closing(lease);
        String what = "close of lease#" + lease.id + " at +" + model.millisSinceStart(System.nanoTime()) + " ms (valid "
                + valid + "): ";
        try {
            lease.lease.close();
            lease.hold.note(what + "ok");
            suite.count("close ok");
            model.losses.closedNormally(lease, valid, last);
        } catch (LockLostException e) {
            lease.hold.note(what + "lost (" + e.reason() + ")");
            suite.count("close lost");
            model.losses.closedLost(lease);
        } catch (LockBackendException e) {
            lease.hold.note(what + fault(e));
            suite.count("close" + (injected(e) ? " injected failure" : " backend failure"));
        } catch (RuntimeException e) {
            suite.violations().add("f", "close() of " + lease + " threw " + stackOf(e));
        }
    }

    /** For a while, renewals of this client fail, come back late, or lose their reply. */
    private void renewalFaultWindow(PropertyClient client) {
        long end = System.nanoTime() + Duration.ofMillis(200 + random.nextInt(1800)).toNanos();
        double chance = 0.3 + random.nextDouble() * 0.7;
        Injection injection = randomInjection(1500);
        client.faults.plan((operation, key) -> {
            boolean renewal = operation == Operation.RENEW || operation == Operation.RENEW_ALL;
            return renewal && System.nanoTime() - end < 0 && ThreadLocalRandom.current().nextDouble() < chance
                    ? injection : null;
        });
        client.noteFault("+" + model.millisSinceStart(System.nanoTime()) + " ms: renewals " + describe(injection)
                + " for " + (end - System.nanoTime()) / 1_000_000 + " ms at chance " + Math.round(chance * 100) + "%");
        suite.count("renewal fault window " + injection.fault());
    }

    /** The next call or two of one operation of this client fail, come back late, or lose their reply. */
    private void replyFault(PropertyClient client) {
        Operation[] operations = {Operation.TRY_ACQUIRE, Operation.ACQUIRE, Operation.RELEASE, Operation.RENEW};
        Operation operation = operations[random.nextInt(operations.length)];
        Injection injection = randomInjection(500);
        client.faults.script(operation, injection, 1 + random.nextInt(2));
        client.noteFault("+" + model.millisSinceStart(System.nanoTime()) + " ms: next " + operation + " " + describe(injection));
        suite.count("reply fault " + operation + " " + injection.fault());
    }

    private static String describe(Injection injection) {
        return injection.fault() == Fault.DELAY ? "DELAY " + injection.delay().toMillis() + " ms" : injection.fault().name();
    }

    private Injection randomInjection(int maxDelayMillis) {
        Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
        return new Injection(fault, Duration.ofMillis(20 + random.nextInt(maxDelayMillis)));
    }

    /** Deletes a random hold on the server behind its holder's back. */
    private void forget() {
        TrackedLease victim = model.anyOpen(random);
        if (victim == null) {
            return;
        }
        suite.forget(victim);
        suite.count("server forget");
    }

    private void expectClosed(PropertyClient client, String op, IllegalStateException e) {
        if (client.closeStarted()) {
            suite.count(op + " on closed client");
        } else {
            suite.violations().add("f", op + " on open " + client + " threw " + stackOf(e));
        }
    }

    /** Which injected fault {@code e} was, or "backend failure". */
    private static String fault(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains(FaultInjectingBackend.MARK)) {
                for (Fault fault : Fault.values()) {
                    if (message.contains(FaultInjectingBackend.MARK + " " + fault + " ")) {
                        return "injected " + fault;
                    }
                }
            }
        }
        return "backend failure " + e.getClass().getSimpleName();
    }

    private static boolean injected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(FaultInjectingBackend.MARK)) {
                return true;
            }
        }
        return false;
    }

    static String stackOf(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String text = out.toString();
        return text.length() > 3000 ? text.substring(0, 3000) + "..." : text;
    }
}
