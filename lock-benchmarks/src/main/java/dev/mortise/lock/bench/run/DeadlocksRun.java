package dev.mortise.lock.bench.run;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.bench.common.CycleBreakResult;
import dev.mortise.lock.bench.common.DeadlockOverheadResult;
import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Deadlock detection measured (issue 31), per backend: (a) what it costs contended nested waits that
 * are no deadlock ({@value #THREADS} threads over {@value #PROCESSES} client processes, two of
 * {@value #KEYS} keys at a time in one order, held {@value #HOLD_MILLIS} ms, so waits outlast the
 * threshold holding the other key), with detection on and off; (b) how long a two-process cycle takes
 * to break, from the younger wait's start to its {@code LockDeadlockException}. The processes are
 * {@link DeadlocksWorker} JVMs; on the in-process backend, clients on one shared server in this JVM.
 */
public final class DeadlocksRun {

    static final int PROCESSES = 2;
    static final int THREADS = 8;
    static final int KEYS = 4;
    static final long HOLD_MILLIS = 100;
    /** How much later the second wait of a cycle starts than the first: it is the younger, the victim. */
    static final long STAGGER_MILLIS = 50;

    private final Notes notes;
    private final long warmMillis;
    private final long measureMillis;
    private final int rounds;

    public DeadlocksRun(Timing timing, Notes notes) {
        this.notes = notes;
        this.warmMillis = timing.smoke() ? 300 : 3_000;
        this.measureMillis = timing.smoke() ? 3_000 : 15_000; // quick: long enough that some waits outlast the threshold
        this.rounds = timing.smoke() ? 2 : 20;
    }

    /** The overhead rows (off, then on) of {@code group}. */
    public List<DeadlockOverheadResult> overhead(String group, Endpoints endpoints) throws Exception {
        List<DeadlockOverheadResult> results = new ArrayList<>();
        for (boolean detection : new boolean[] {false, true}) {
            notes.progress(" deadlocks: nested contended waits, detection " + (detection ? "on" : "off"));
            List<DeadlockParty> parties = parties(group, endpoints, detection);
            try {
                String prefix = "deadlocks-" + System.nanoTime() + ":";
                load(parties, prefix + "warm:", warmMillis);
                results.add(result(group, detection, load(parties, prefix, measureMillis)));
            } finally {
                closeAll(parties);
            }
        }
        for (DeadlockOverheadResult r : results) {
            notes.progress(String.format("  %-10s detection %-3s %7.1f ops/s  acquire p50 %7.1f ms  p99 %7.1f ms  "
                    + "%,d published  %7.1f requests/s", group, r.detection(), r.opsPerSecond(),
                    r.acquireP50Millis(), r.acquireP99Millis(), r.publishes(), r.requestsPerSecond()));
        }
        return results;
    }

    /** The cycle-break row of {@code group}. */
    public CycleBreakResult cycles(String group, Endpoints endpoints) throws Exception {
        notes.progress(" deadlocks: two-process cycles, " + rounds + " rounds");
        List<DeadlockParty> parties = parties(group, endpoints, true);
        Latencies broken = new Latencies();
        try {
            DeadlockParty older = parties.get(0);
            DeadlockParty younger = parties.get(1);
            for (int round = 0; round < rounds; round++) {
                String a = "deadlocks-cycle-" + System.nanoTime() + ":a";
                String b = a.substring(0, a.length() - 1) + "b";
                older.send("HOLD " + a);
                younger.send("HOLD " + b);
                older.expect("HELD");
                younger.expect("HELD");
                older.send("WAIT " + b);
                Thread.sleep(STAGGER_MILLIS);
                younger.send("WAIT " + a);
                String[] young = younger.expect("VICTIM", "GRANTED", "TIMEOUT");
                String[] old = older.expect("VICTIM", "GRANTED", "TIMEOUT");
                if (young[0].equals("VICTIM") && old[0].equals("GRANTED")) {
                    broken.add(Long.parseLong(young[1]));
                } else {
                    notes.finding("deadlocks " + group + ": round " + round + " ended " + Arrays.toString(old)
                            + " for the older wait, " + Arrays.toString(young) + " for the younger");
                }
            }
        } finally {
            closeAll(parties);
        }
        DeadlockDetection d = DeadlockDetection.DEFAULT;
        CycleBreakResult result = new CycleBreakResult(group, rounds, broken.size(), d.threshold().toMillis(),
                d.period().toMillis(), broken.percentileMicros(50) / 1000, broken.percentileMicros(100) / 1000);
        notes.progress(String.format("  %-10s %d of %d cycles broken, the younger wait's exception after %.0f ms "
                + "median, %.0f ms max", group, result.broken(), rounds, result.medianMillis(), result.maxMillis()));
        return result;
    }

    /** Every party loads for {@code millis}; the answers' fields, one array per party. */
    private static List<String[]> load(List<DeadlockParty> parties, String prefix, long millis) throws IOException {
        for (DeadlockParty party : parties) {
            party.send(String.format("LOAD %s %d %d %d %d", prefix, THREADS / PROCESSES, millis, KEYS, HOLD_MILLIS));
        }
        List<String[]> answers = new ArrayList<>();
        for (DeadlockParty party : parties) {
            answers.add(party.expect("LOADED"));
        }
        return answers;
    }

    private DeadlockOverheadResult result(String group, boolean detection, List<String[]> answers) {
        long ops = 0;
        long publishes = 0;
        long requests = 0;
        Latencies acquires = new Latencies();
        for (String[] a : answers) {
            ops += Long.parseLong(a[1]);
            publishes += Long.parseLong(a[2]);
            requests += Long.parseLong(a[3]);
            for (int i = 4; i < a.length; i++) {
                acquires.add(Long.parseLong(a[i]));
            }
        }
        double seconds = measureMillis / 1000.0;
        return new DeadlockOverheadResult(group, detection ? "on" : "off", PROCESSES, THREADS, KEYS, HOLD_MILLIS,
                seconds, ops, ops / seconds, acquires.percentileMicros(50) / 1000,
                acquires.percentileMicros(99) / 1000, publishes, requests, requests / seconds);
    }

    private static List<DeadlockParty> parties(String group, Endpoints endpoints, boolean detection)
            throws IOException {
        List<DeadlockParty> parties = new ArrayList<>();
        LocalLockServer shared = group.equals("local") ? new LocalLockServer() : null;
        for (int i = 0; i < PROCESSES; i++) {
            parties.add(shared != null ? DeadlockParty.inProcess(new LocalLockBackend(shared), detection)
                    : DeadlockParty.child(group, endpoints.get(group), detection));
        }
        return parties;
    }

    private static void closeAll(List<DeadlockParty> parties) throws Exception {
        for (DeadlockParty party : parties) {
            party.close();
        }
    }
}
