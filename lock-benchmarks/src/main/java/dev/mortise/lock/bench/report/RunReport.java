package dev.mortise.lock.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one benchmark run measured, plus where and how; the writers turn it into files. */
public final class RunReport {

    public final Map<String, String> environment = new LinkedHashMap<>();
    public final Map<String, String> servers = new LinkedHashMap<>();
    public final List<UncontendedResult> uncontended = new ArrayList<>();
    public final List<HandoffResult> handoffs = new ArrayList<>();
    public final List<KeySetResult> keySets = new ArrayList<>();
    public final List<ManyLeasesResult> manyLeases = new ArrayList<>();
    public final List<OverheadResult> overhead = new ArrayList<>();
    public final List<String> findings = new ArrayList<>();
    public String command = "./scripts/benchmark.sh";
    public boolean quick;
}
