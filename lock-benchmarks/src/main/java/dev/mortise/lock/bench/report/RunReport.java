package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.common.CycleBreakResult;
import dev.mortise.lock.bench.common.DeadlockOverheadResult;
import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.common.KeySetResult;
import dev.mortise.lock.bench.common.ManyLeasesResult;
import dev.mortise.lock.bench.common.OverheadResult;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.common.WaitersResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one benchmark run measured, plus where and how; the writers turn it into files. */
public final class RunReport {

    public final Map<String, String> environment = new LinkedHashMap<>();
    public final Map<String, String> servers = new LinkedHashMap<>();
    /** The peer and client library versions the run measured with (filled by the run, read back by {@link ResultsReader}). */
    public final Map<String, String> libraries = new LinkedHashMap<>();
    public final List<UncontendedResult> uncontended = new ArrayList<>();
    public final List<HandoffResult> handoffs = new ArrayList<>();
    public final List<KeySetResult> keySets = new ArrayList<>();
    public final List<ManyLeasesResult> manyLeases = new ArrayList<>();
    public final List<WaitersResult> waiters = new ArrayList<>();
    public final List<DeadlockOverheadResult> deadlockOverhead = new ArrayList<>();
    public final List<CycleBreakResult> cycleBreaks = new ArrayList<>();
    public final List<OverheadResult> overhead = new ArrayList<>();
    public final List<String> findings = new ArrayList<>();
    public String command = "./scripts/benchmark.sh";
    public boolean quick;
    /** Cores visible to the run's JVM; -1 if unknown. */
    public int cores = -1;
    /**
     * Set when the report was read back from a results.json instead of measured ({@code --report-from}):
     * the file as given on the command line; null for a measured run.
     */
    public String renderedFrom;
    /** With {@link #renderedFrom}: the command that rendered the page again. */
    public String renderCommand;
}
