package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.LockBackend;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A seeded, randomized check of the lock contract against one backend: several clients
 * (each as a separate process would be, on its own backend) run random sequences of
 * operations on many leases at once over random keys, under injected faults, while the
 * {@link PropertyModel} checks the invariants continuously:
 *
 * <ul>
 *   <li>(a) at every grant, and at every moment a sampler looks, no valid exclusive hold on a
 *       key overlaps any other valid hold of the key (shared holds may be valid together);</li>
 *   <li>(b) tokens strictly increase per key in grant order; nested leases share their
 *       hold's token;</li>
 *   <li>(c) every lease that stopped being valid while open got exactly one {@code onLost},
 *       within a grace period; none fires twice, none fires for a cleanly released lease,
 *       and a lease is invalid before its loss is told;</li>
 *   <li>(d) after every client closed, nothing is left on the server for any key (waiting out
 *       leases whose release was dropped);</li>
 *   <li>(e) a lease handed out after its client's {@code close()} returned is not valid;</li>
 *   <li>(f) operations throw only what their contract says;</li>
 *   <li>(g) a multi-key lease agrees with its parts (keys in canonical order, modes, tokens,
 *       invalid once a part is), and gets one {@code onLost} for the whole if, and only if, a
 *       part got one. Each part is a lease of its key's hold, so (a) to (e) apply to it.</li>
 * </ul>
 *
 * <p>Operations: acquire with the client's renewed default lease (short or long per client)
 * or an explicit short or long lease, exclusive or (on a backend that supports it) shared, tryAcquire with and without a wait, nested acquire,
 * multi-key acquireAll/tryAcquireAll of 2 or 3 overlapping keys (mixed modes where supported) with
 * their extend and close,
 * extend to a longer or shorter lease, release, windows of failed, delayed or dropped
 * renewals, failed/delayed/dropped replies of single acquire, release and renew calls
 * (through {@link FaultInjectingBackend}), deleting a hold on the server
 * ({@code breakHold}), a client {@link dev.mortise.lock.LockListener} and {@code onLost}
 * listeners that sometimes block for a second or so, and closing a whole client and
 * replacing it.
 *
 * <p>A run is bounded twice: by the number of sequences and by a wall-time cap; whichever
 * comes first ends it. The seed fixes the keys, the clients' leases and every worker's
 * program; the interleaving of threads is the machine's, so a seed replays the same
 * workload, not the same schedule. See {@code docs/property-suite.md}.
 */
public final class ValidityPropertySuite {

    /** What a backend's contract test supplies (see {@link LockBackendContractSuite}). */
    public interface Target {
        /** A new, independent backend against the shared test server (as another process). */
        LockBackend newBackend() throws Exception;

        /** Deletes the hold behind {@code lease} on the server behind its holder's back. */
        void breakHold(LockLease lease) throws Exception;

        /** Records the server keeps for {@code key} besides its durable fencing state. */
        int residueOnServer(String key) throws Exception;

        /** The least lease the suite may ask for on this backend (explicit or default). */
        Duration leaseFloor();
    }

    /**
     * How a run is set up; {@link #fromSystemProperties()} reads the {@code mortise.property.*}
     * system properties.
     *
     * @param seed             the seed of everything random in the run
     * @param sequences        how many random sequences the workers run in all (0 skips the run)
     * @param maxRun           wall-time cap of the random phase
     * @param clients          concurrent clients (each replaced now and then)
     * @param workersPerClient threads per client, each holding many leases
     * @param lostGrace        how long a lease may be invalid before its onLost must have come
     * @param without          kinds of operation left out, to narrow a failure down: {@code extend},
     *                         {@code faults}, {@code forget}, {@code close}, {@code blocking},
     *                         {@code nested}, {@code explicit}, {@code shared}, {@code multikey},
     *                         {@code async} (the asynchronous forms, see {@link PropertyCalls})
     */
    public record Settings(long seed, int sequences, Duration maxRun, int clients, int workersPerClient,
                           Duration lostGrace, java.util.Set<String> without) {

        public static final String SEED = "mortise.property.seed";
        public static final String SEQUENCES = "mortise.property.sequences";
        public static final String MAX_SECONDS = "mortise.property.maxSeconds";
        public static final String WITHOUT = "mortise.property.without";
        /**
         * Sequences of a default (CI) run: twelve contract classes run it in every CI run, each
         * with a fresh seed, so coverage adds up across runs; longer runs are one option away.
         */
        public static final int DEFAULT_SEQUENCES = 150;
        /** Wall-time cap of the random phase of a default (CI) run. */
        public static final Duration DEFAULT_MAX_RUN = Duration.ofSeconds(12);

        public static Settings fromSystemProperties() {
            String seedText = System.getProperty(SEED);
            long seed = seedText == null || seedText.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(seedText.trim());
            String sequencesText = System.getProperty(SEQUENCES);
            int sequences = sequencesText == null ? DEFAULT_SEQUENCES : Integer.parseInt(sequencesText.trim());
            String maxText = System.getProperty(MAX_SECONDS);
            // An explicit sequence count asks for a longer run: let it take about 0.1 s per sequence.
            Duration maxRun = maxText != null ? Duration.ofSeconds(Long.parseLong(maxText.trim()))
                    : sequencesText == null ? DEFAULT_MAX_RUN
                    : Duration.ofSeconds(Math.max(DEFAULT_MAX_RUN.toSeconds(), sequences / 10L));
            return new Settings(seed, sequences, maxRun, Integer.getInteger("mortise.property.clients", 3),
                    Integer.getInteger("mortise.property.workers", 2),
                    Duration.ofMillis(Long.getLong("mortise.property.lostGraceMs", 10000)),
                    java.util.Set.of(System.getProperty(WITHOUT, "").trim().split("\\s*,\\s*")));
        }

        /** Whether operations of this kind are run. */
        public boolean runs(String kind) {
            return !without.contains(kind);
        }

        /** The command-line options that replay this run. */
        public String rerun() {
            String narrowed = String.join(",", without).replace(" ", "");
            return "-D" + SEED + "=" + seed + " -D" + SEQUENCES + "=" + sequences
                    + (narrowed.isEmpty() ? "" : " -D" + WITHOUT + "=" + narrowed);
        }
    }

    private final Target target;
    private final Settings settings;
    private final PropertyViolations violations;
    private final PropertyModel model;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final AtomicInteger sequencesLeft;
    private final AtomicInteger sequencesRun = new AtomicInteger();
    private final AtomicLong longestLeaseMillis = new AtomicLong();
    private final PropertyClients clients;
    private boolean sessionBound;
    private volatile boolean stopping;
    private long deadlineNanos;
    private String backendName = "?";
    private volatile boolean sharedMode;

    public ValidityPropertySuite(Target target, Settings settings) {
        this.target = target;
        this.settings = settings;
        this.violations = new PropertyViolations(8, first -> System.out.println(
                "ValidityPropertySuite: first violation (seed " + settings.seed() + "): " + first));
        this.model = new PropertyModel(settings.lostGrace(), violations);
        this.sequencesLeft = new AtomicInteger(settings.sequences());
        this.clients = new PropertyClients(this, target, settings, model);
    }

    /**
     * Runs the suite.
     *
     * @throws AssertionError naming the seed and every invariant violated, with examples
     */
    public void run() throws Exception {
        if (settings.sequences() <= 0) {
            return;
        }
        long started = System.nanoTime();
        Random random = new Random(settings.seed());
        List<String> keys = PropertyKeys.pool(random, 12 + random.nextInt(28));
        clients.open(random);
        try (LockBackend probe = target.newBackend()) {
            // Workers take some holds shared where the backend supports it (unless left out).
            sharedMode = probe.supportsSharedMode() && settings.runs("shared");
        }
        PropertyClient first = clients.client(0);
        backendName = first.client.backendName();
        BackendGuarantees guarantees = first.client.guarantees();
        sessionBound = guarantees.leaseModel() == BackendGuarantees.LeaseModel.SESSION_BOUND;
        System.out.println("ValidityPropertySuite: backend '" + backendName + "', seed " + settings.seed() + ", "
                + settings.sequences() + " sequences, cap " + settings.maxRun().toSeconds() + " s, " + keys.size()
                + " keys, lease floor " + clients.leases().floor().toMillis() + " ms" + (sharedMode ? ", shared holds too" : "")
                + (settings.runs("multikey") ? ", multi-key leases too" : "")
                + " (re-run with " + settings.rerun() + ")");
        deadlineNanos = System.nanoTime() + settings.maxRun().toNanos();

        Thread sampler = new Thread(this::sample, "property-sampler");
        sampler.setDaemon(true);
        sampler.start();
        List<Thread> workers = new ArrayList<>();
        int workerId = 0;
        for (int slot = 0; slot < settings.clients(); slot++) {
            for (int w = 0; w < settings.workersPerClient(); w++) {
                PropertyWorker worker = new PropertyWorker(workerId, slot, this, model, clients.leases(), keys,
                        random.nextLong());
                Thread thread = new Thread(worker, "property-worker-" + workerId);
                thread.setDaemon(true);
                workers.add(thread);
                workerId++;
            }
        }
        workers.forEach(Thread::start);
        long joinBy = deadlineNanos + Duration.ofSeconds(60).toNanos();
        for (Thread thread : workers) {
            thread.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
        }
        stopping = true;
        for (Thread thread : workers) {
            if (thread.isAlive()) {
                violations.add("f", thread.getName() + " still runs a minute after the run's deadline: "
                        + stack(thread));
                thread.interrupt();
            }
        }
        long randomPhase = System.nanoTime() - started;

        model.orphans.check(clients.current(), settings.lostGrace());
        clients.closeAll();
        checkLeasesOfClosedClients();
        long graceEnd = System.nanoTime() + settings.lostGrace().toNanos();
        while (model.losses.lossesPending() && System.nanoTime() - graceEnd < 0) {
            Thread.sleep(20);
        }
        sampler.interrupt();
        sampler.join(10_000);
        model.losses.checkLossesDue(true);
        checkNothingLeft(keys);

        String summary = summary(randomPhase, System.nanoTime() - started);
        System.out.println(summary);
        if (violations.total() > 0) {
            throw failure(summary);
        }
    }

    /** (e): no lease is valid after its client was closed; then their losses become due. */
    private void checkLeasesOfClosedClients() {
        for (TrackedLease lease : model.losses.unclosed()) {
            if (lease.lease.isValid()) {
                violations.add("e", lease + " reports isValid() == true after its client was closed");
            }
            model.losses.observe(lease);
        }
        for (TrackedMulti multi : model.multis.unclosed()) {
            if (multi.lease.isValid()) {
                violations.add("e", multi + " reports isValid() == true after its client was closed");
            }
        }
    }

    /** The failure naming the seed, every invariant violated with examples, and the traces. */
    private AssertionError failure(String summary) {
        StringBuilder message = new StringBuilder("Lock contract violated on backend '" + backendName + "' (seed "
                + settings.seed() + "; re-run with " + settings.rerun() + "): " + violations.total()
                + " violation(s) " + new TreeMap<>(violations.counts()) + "\n");
        for (String example : violations.examples()) {
            message.append("  ").append(example).append(" [re-run with ").append(settings.rerun()).append("]\n");
        }
        message.append(model.traces(2));
        message.append(summary);
        return new AssertionError(message.toString());
    }

    // ---- called by workers ------------------------------------------------------------------

    /** Whether workers take some holds shared. */
    boolean sharedMode() {
        return sharedMode;
    }

    Settings settings() {
        return settings;
    }

    PropertyViolations violations() {
        return violations;
    }

    boolean stopping() {
        return stopping || System.nanoTime() - deadlineNanos > 0;
    }

    /** Takes one sequence from the budget; false when the budget or the time is used up. */
    boolean takeSequence() {
        if (stopping() || sequencesLeft.getAndDecrement() <= 0) {
            return false;
        }
        sequencesRun.incrementAndGet();
        return true;
    }

    PropertyClient client(int slot) {
        return clients.client(slot);
    }

    /** Closes {@code old} and puts a new client in its slot; at most once per two seconds in a run. */
    void replaceClient(PropertyClient old, Random random) {
        clients.replace(old, random);
    }

    void count(String what) {
        counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    void leaseUsed(Duration lease) {
        longestLeaseMillis.accumulateAndGet(lease.toMillis(), Math::max);
    }

    /** Deletes the hold behind {@code victim} on the server, telling the model first. */
    void forget(TrackedLease victim) {
        Object forget = model.forgets.forgetting(victim.key(), victim.hold.client, sessionBound);
        try {
            target.breakHold(victim.lease);
        } catch (Throwable ignored) {
            // the hold was gone already, or only partly there: the model counts it as deleted anyway
        } finally {
            model.forgets.forgotten(forget);
        }
    }

    // ---- the sampler and the end ------------------------------------------------------------

    private void sample() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                model.sweep();
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                violations.add("f", "a lease method threw in the sampler: " + PropertyWorker.stackOf(e));
            }
        }
    }

    /** (d): waits out leases whose release was lost (at most the longest lease and some slack). */
    private void checkNothingLeft(List<String> keys) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMillis(longestLeaseMillis.get()).plusSeconds(5).toNanos();
        Map<String, Integer> left = new TreeMap<>();
        for (String key : keys) {
            int residue = -1;
            while (true) {
                try {
                    residue = target.residueOnServer(key);
                } catch (Exception e) {
                    violations.add("f", "residueOnServer('" + PropertyModel.show(key) + "') failed: " + e);
                    break;
                }
                if (residue == 0 || System.nanoTime() - deadline > 0) {
                    break;
                }
                Thread.sleep(50);
            }
            if (residue > 0) {
                left.put(PropertyModel.show(key), residue);
            }
        }
        if (!left.isEmpty()) {
            violations.add("d", "records left on the server " + longestLeaseMillis.get() + " ms + 5 s after every client"
                    + " closed (the longest lease used): " + left);
        }
    }

    private String summary(long randomPhaseNanos, long totalNanos) {
        StringBuilder text = new StringBuilder("ValidityPropertySuite on '" + backendName + "': seed " + settings.seed()
                + ", " + sequencesRun.get() + " of " + settings.sequences() + " sequences in "
                + randomPhaseNanos / 1_000_000 + " ms (whole run " + totalNanos / 1_000_000 + " ms), "
                + model.all().size() + " leases (" + model.multis.count() + " multi-key), " + clients.made() + " clients; faults injected:");
        long[] faults = clients.faultsInjected();
        for (FaultInjectingBackend.Fault fault : FaultInjectingBackend.Fault.values()) {
            text.append(' ').append(fault).append('=').append(faults[fault.ordinal()]);
        }
        text.append("\n  operations: ");
        new TreeMap<>(counts).forEach((what, count) -> text.append(what).append('=').append(count.sum()).append("; "));
        return text.toString();
    }

    private static String stack(Thread thread) {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement element : thread.getStackTrace()) {
            text.append("\n    at ").append(element);
        }
        return text.toString();
    }
}
