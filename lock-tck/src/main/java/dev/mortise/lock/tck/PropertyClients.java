package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The clients of one property run: one per slot, each on its own backend wrapped in a
 * {@link FaultInjectingBackend} (as another process would be), some with a slow listener; a
 * worker may close its slot's client and put a new one in. Thread-safe.
 */
final class PropertyClients {

    private final ValidityPropertySuite suite;
    private final ValidityPropertySuite.Target target;
    private final ValidityPropertySuite.Settings settings;
    private final PropertyModel model;
    private final AtomicInteger clientIds = new AtomicInteger();
    private final List<PropertyClient> everyClient = new ArrayList<>(); // guarded by this
    private final AtomicReferenceArray<PropertyClient> slots;
    private PropertyLeases leases;
    private long lastReplaceNanos;

    PropertyClients(ValidityPropertySuite suite, ValidityPropertySuite.Target target,
                    ValidityPropertySuite.Settings settings, PropertyModel model) {
        this.suite = suite;
        this.target = target;
        this.settings = settings;
        this.model = model;
        this.slots = new AtomicReferenceArray<>(settings.clients());
    }

    /** Puts a new client in every slot. */
    void open(Random random) throws Exception {
        for (int slot = 0; slot < settings.clients(); slot++) {
            slots.set(slot, newClient(slot, random));
        }
    }

    PropertyClient client(int slot) {
        return slots.get(slot);
    }

    /** The clients in the slots now (the ones the run has not replaced). */
    List<PropertyClient> current() {
        List<PropertyClient> current = new ArrayList<>();
        for (int slot = 0; slot < slots.length(); slot++) {
            current.add(slots.get(slot));
        }
        return current;
    }

    /** The leases the run may ask for, known once the first client's backend told its minimum. */
    PropertyLeases leases() {
        return leases;
    }

    /** How many clients the run made. */
    int made() {
        return clientIds.get();
    }

    /** Faults injected into every client's backend, by {@link FaultInjectingBackend.Fault#ordinal()}. */
    synchronized long[] faultsInjected() {
        long[] faults = new long[FaultInjectingBackend.Fault.values().length];
        for (PropertyClient client : everyClient) {
            for (FaultInjectingBackend.Fault fault : FaultInjectingBackend.Fault.values()) {
                faults[fault.ordinal()] += client.faults.injected(fault);
            }
        }
        return faults;
    }

    PropertyClient newClient(int slot, Random random) throws Exception {
        LockBackend raw = target.newBackend();
        if (leases == null) {
            Duration floor = max(target.leaseFloor(), raw.guarantees().minimumLease());
            leases = new PropertyLeases(floor);
        }
        FaultInjectingBackend faults = new FaultInjectingBackend(raw);
        Duration defaultLease = leases.renewedDefault(random);
        suite.leaseUsed(defaultLease);
        // Some clients have a listener that is often slow: it must delay neither renewals nor losses.
        double[] chances = {0, 0.01, 0.05, 0.1};
        double blockChance = settings.runs("blocking") ? chances[random.nextInt(chances.length)] : 0;
        int id = clientIds.incrementAndGet();
        PropertyClient[] self = new PropertyClient[1];
        LockClient client = LockClient.builder(faults).defaultLease(defaultLease).listener(event -> {
            suite.count("event " + event.type());
            if (event.type() == LockEvent.Type.LOST && self[0] != null) {
                model.lostEventTold(self[0], event.key(), event.fencingToken());
            }
            if (blockChance > 0 && ThreadLocalRandom.current().nextDouble() < blockChance) {
                String thread = Thread.currentThread().getName().replaceAll("\\d+$", "");
                long millis = 100 + ThreadLocalRandom.current().nextInt(1900);
                suite.count("listener blocked on " + event.type() + " (" + thread + ")");
                if (self[0] != null && !thread.startsWith("property-worker")) {
                    self[0].noteFault("+" + model.millisSinceStart(System.nanoTime()) + " ms: its LockListener blocked "
                            + millis + " ms on " + event.type() + " in " + thread);
                }
                PropertyModel.sleep(Duration.ofMillis(millis));
            }
        }).build();
        PropertyClient created = new PropertyClient(id, slot, client, faults, defaultLease, blockChance);
        self[0] = created;
        synchronized (this) {
            everyClient.add(created);
        }
        return created;
    }

    /** Closes {@code old} and puts a new client in its slot; at most once per two seconds in a run. */
    void replace(PropertyClient old, Random random) {
        PropertyClient replacement;
        synchronized (this) {
            long now = System.nanoTime();
            if (slots.get(old.slot) != old || (lastReplaceNanos != 0 && now - lastReplaceNanos < 2_000_000_000L)
                    || suite.stopping()) {
                return;
            }
            lastReplaceNanos = now;
            try {
                replacement = newClient(old.slot, random);
            } catch (Exception e) {
                suite.violations().add("f", "could not create a new client: " + PropertyWorker.stackOf(e));
                return;
            }
            slots.set(old.slot, replacement);
        }
        old.close();
        suite.count("client closed and replaced");
    }

    /** Closes every client the run made; a close that throws breaks (f). */
    void closeAll() {
        List<PropertyClient> clients;
        synchronized (this) {
            clients = new ArrayList<>(everyClient);
        }
        for (PropertyClient client : clients) {
            try {
                client.close();
            } catch (RuntimeException e) {
                suite.violations().add("f", "close() of " + client + " threw " + PropertyWorker.stackOf(e));
            }
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
