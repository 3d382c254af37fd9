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

    final int id;
    private final int slot;
    final ValidityPropertySuite suite;
    final PropertyModel model;
    final PropertyLeases leases;
    private final List<String> keys;
    final Random random;
    private final int targetHeld;
    private final List<TrackedLease> held = new ArrayList<>();
    /** This worker's multi-key leases and what it does with them. */
    private final MultiKeyOperations multiKey;
    /** Blocking or asynchronous, per call. */
    final PropertyCalls calls;

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
        this.calls = new PropertyCalls(suite, model, random, id);
        this.multiKey = new MultiKeyOperations(this);
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
                multiKey.releaseAll();
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
            multiKey.step(client, explicit);
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
    String key() {
        int hot = Math.min(keys.size(), 6);
        return random.nextInt(3) == 0 ? keys.get(random.nextInt(hot)) : keys.get(random.nextInt(keys.size()));
    }

    /** Exclusive, or shared one time in three where the backend supports it. */
    LockMode mode() {
        return suite.sharedMode() && random.nextInt(3) == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
    }

    Duration waitTime() {
        int roll = random.nextInt(4);
        return roll == 0 ? Duration.ZERO : Duration.ofMillis(random.nextInt(roll == 3 ? 1500 : 400));
    }

    private void acquire(PropertyClient client, String key, Duration explicitLease, Duration wait, boolean tryOnly,
                         LockMode mode) {
        acquire(client, key, explicitLease, wait, tryOnly, mode, false);
    }

    /** @param byThread whether the acquire must be the thread's (a nested one): then it is blocking */
    private void acquire(PropertyClient client, String key, Duration explicitLease, Duration wait, boolean tryOnly,
                         LockMode mode, boolean byThread) {
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
            Optional<LockLease> maybe = calls.single(client, spec, tryOnly, explicitLease == null && !shared, byThread,
                    op);
            if (maybe == null) {
                return; // cancelled part-way (counted)
            }
            if (maybe.isEmpty()) {
                suite.count(op + " busy");
                return;
            }
            lease = maybe.get();
        } catch (dev.mortise.lock.LockDeadlockException e) {
            // random nested orders deadlock for real; the deadlock suite checks each report against
            // the true wait-for graph (DeadlockPropertyRun), this one that nothing of it is held
            suite.count(op + " deadlock victim");
            return;
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
                Duration.ofMillis(random.nextInt(300)), random.nextBoolean(), mode, true);
    }

    /** Whether this worker has an open lease (alone or as a part) on a shared hold of {@code key} from {@code client}. */
    boolean holdsShared(PropertyClient client, String key) {
        List<TrackedLease> mine = new ArrayList<>(held);
        mine.addAll(multiKey.heldParts());
        for (TrackedLease lease : mine) {
            if (lease.hold.client == client && lease.key().equals(key) && lease.hold.mode == LockMode.SHARED
                    && !lease.closeStarted) {
                return true;
            }
        }
        return false;
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

    String answered() {
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

    void expectClosed(PropertyClient client, String op, IllegalStateException e) {
        if (client.closeStarted()) {
            suite.count(op + " on closed client");
        } else {
            suite.violations().add("f", op + " on open " + client + " threw " + stackOf(e));
        }
    }

    /** Which injected fault {@code e} was, or "backend failure". */
    static String fault(Throwable e) {
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

    static boolean injected(Throwable e) {
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
