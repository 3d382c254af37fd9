package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.common.JavaProcess;
import dev.mortise.lock.bench.common.WaitersResult;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waiting without a thread, measured: W waiters on {@link WaitersWorker#KEYS} keys that another client
 * holds, through {@code LockClient.acquireAsync} (Mortise async), through the blocking {@code acquire} on
 * a platform thread per waiter (Mortise blocking), and on Redis through Redisson's {@code RLock.lockAsync}.
 * Each subject runs in a JVM of its own ({@link WaitersWorker}), so the threads it counts are that
 * library's alone (no idle pool thread of an earlier subject reused and hidden).
 */
public final class WaitersRun {

    private final Notes notes;
    private final int waiters;
    private final int fewWaiters;

    public WaitersRun(Timing timing, Notes notes) {
        this.notes = notes;
        this.waiters = timing.smoke() ? 400 : 10_000;
        this.fewWaiters = timing.smoke() ? 200 : 1_000;
    }

    public List<WaitersResult> run(String group, Endpoints endpoints) {
        List<WaitersResult> results = new ArrayList<>();
        for (String subject : WaiterSubjects.ids(group)) {
            notes.progress(" waiters: " + subject);
            try {
                results.add(inChild(group, endpoints, subject));
            } catch (Exception e) {
                notes.finding("waiters " + group + "/" + subject + " failed: " + e);
            }
        }
        for (WaitersResult r : results) {
            notes.progress(String.format("  %-28s threads +%d at %,d waiters, +%d at %,d  heap %.0f B/waiter  "
                    + "drain %.2f s", r.id(), r.threadsFew(), r.fewWaiters(), r.threadsMany(), r.waiters(),
                    r.heapBytesPerWaiter(), r.drainSeconds()));
        }
        return results;
    }

    private WaitersResult inChild(String group, Endpoints endpoints, String subject) throws Exception {
        Process child = JavaProcess.start(WaitersWorker.class, List.of("-Xmx1g", "-XX:+UseG1GC"), List.of(group,
                endpoints.get(group), subject, Integer.toString(fewWaiters), Integer.toString(waiters)));
        String result = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(WaitersWorker.RESULT)) {
                    result = line.substring(WaitersWorker.RESULT.length()).trim();
                }
            }
        } finally {
            if (!child.waitFor(15, TimeUnit.MINUTES)) {
                child.destroyForcibly();
            }
        }
        if (result == null) {
            throw new IllegalStateException("the worker JVM printed no result (exit " + child.exitValue() + ")");
        }
        String[] f = result.split(" ");
        return new WaitersResult(group, group + "/" + subject, WaiterSubjects.label(subject), fewWaiters, waiters,
                WaitersWorker.KEYS, Integer.parseInt(f[0]), Integer.parseInt(f[1]), Double.parseDouble(f[2]),
                Double.parseDouble(f[3]));
    }
}
