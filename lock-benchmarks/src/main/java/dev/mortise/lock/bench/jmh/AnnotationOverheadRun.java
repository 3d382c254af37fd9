package dev.mortise.lock.bench.jmh;

import dev.mortise.lock.bench.common.OverheadResult;
import dev.mortise.lock.bench.run.Timing;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Runs {@link AnnotationOverheadBenchmark} through JMH (one fork) and returns ns per call. */
public final class AnnotationOverheadRun {

    private static final Map<String, String> DESCRIPTIONS = Map.of(
            "annotated", "`@DistributedLock(key = \"'order:' + #id\")` method through the Spring proxy",
            "direct", "`try (LockLease l = client.acquire(\"order:\" + id, wait))` around the same method",
            "core", "as direct, on a client built by hand (no Spring context, no listeners)",
            "unlocked", "the same method, no lock, no proxy");

    private AnnotationOverheadRun() {
    }

    public static List<OverheadResult> run(Timing timing) throws Exception {
        boolean quick = timing.smoke();
        Options options = new OptionsBuilder()
                .include(AnnotationOverheadBenchmark.class.getName() + ".*")
                .forks(1)
                .warmupIterations(quick ? 1 : 5)
                .warmupTime(TimeValue.milliseconds(quick ? 200 : 1000))
                .measurementIterations(quick ? 2 : 5)
                .measurementTime(TimeValue.milliseconds(quick ? 200 : 1000))
                .jvmArgs("-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .verbosity(org.openjdk.jmh.runner.options.VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        List<OverheadResult> out = new ArrayList<>();
        for (RunResult result : results) {
            String label = result.getParams().getBenchmark();
            String name = label.substring(label.lastIndexOf('.') + 1);
            out.add(new OverheadResult(name, DESCRIPTIONS.getOrDefault(name, name),
                    result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError()));
        }
        out.sort(java.util.Comparator.comparing(r -> List.of("annotated", "direct", "core", "unlocked").indexOf(r.benchmark())));
        return out;
    }
}
