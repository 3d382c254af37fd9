package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.common.CycleBreakResult;
import dev.mortise.lock.bench.common.DeadlockOverheadResult;
import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.common.KeySetResult;
import dev.mortise.lock.bench.common.ManyLeasesResult;
import dev.mortise.lock.bench.common.OverheadResult;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.common.WaitersResult;
import dev.mortise.lock.bench.common.Role;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@code results.json} written by {@link RawWriter} back into a {@link RunReport}, so the page
 * and the charts can be rendered again without measuring ({@code BenchmarkMain --report-from}).
 *
 * <p>Tolerant of files written by older versions of the harness: a field the file lacks reads as
 * "not measured" and renders as "—" (a missing or null number as NaN, a missing count as -1, a missing
 * text as "—", a missing role as {@link Role#PEER}); unknown fields are ignored. Files older than the
 * {@code cores} field take the core count from the run's {@code CPU} line. Stateless and thread-safe.
 */
public final class ResultsReader {

    private static final Pattern CORES = Pattern.compile("(\\d+) cores visible");

    private ResultsReader() {
    }

    /**
     * The run {@code file} holds; throws {@link IOException} if it cannot be read and
     * {@link IllegalArgumentException} (naming the file) if it is not a results.json.
     */
    public static RunReport read(Path file) throws IOException {
        Object parsed;
        try {
            parsed = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage()
                    + "; --report-from wants a results.json written by BenchmarkMain", e);
        }
        if (!(parsed instanceof Map<?, ?> root)) {
            throw new IllegalArgumentException(file + " is not a JSON object; --report-from wants a results.json "
                    + "written by BenchmarkMain");
        }
        RunReport report = new RunReport();
        if (root.get("command") instanceof String command) {
            report.command = command;
        }
        report.quick = Boolean.TRUE.equals(root.get("quick"));
        strings(root.get("environment"), report.environment);
        strings(root.get("servers"), report.servers);
        strings(root.get("libraries"), report.libraries);
        report.cores = root.get("cores") instanceof Double cores ? cores.intValue() : coresFrom(report);
        report.uncontended.addAll(records(root.get("uncontended"), UncontendedResult.class));
        report.handoffs.addAll(records(root.get("handoff"), HandoffResult.class));
        report.keySets.addAll(records(root.get("keySets"), KeySetResult.class));
        report.manyLeases.addAll(records(root.get("manyLeases"), ManyLeasesResult.class));
        report.waiters.addAll(records(root.get("waiters"), WaitersResult.class));
        report.deadlockOverhead.addAll(records(root.get("deadlockOverhead"), DeadlockOverheadResult.class));
        report.cycleBreaks.addAll(records(root.get("cycleBreaks"), CycleBreakResult.class));
        report.overhead.addAll(records(root.get("annotationOverhead"), OverheadResult.class));
        if (root.get("findings") instanceof List<?> findings) {
            findings.forEach(f -> report.findings.add(String.valueOf(f)));
        }
        return report;
    }

    /** The core count printed in the run's CPU line ("…, 2 cores visible to the JVM"), or -1. */
    private static int coresFrom(RunReport report) {
        Matcher m = CORES.matcher(report.environment.getOrDefault("CPU", ""));
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static void strings(Object json, Map<String, String> into) {
        if (json instanceof Map<?, ?> map) {
            map.forEach((k, v) -> into.put(String.valueOf(k), v == null ? "—" : String.valueOf(v)));
        }
    }

    /** Each JSON object of {@code json} as a {@code type}, through its canonical constructor. */
    private static <R extends Record> List<R> records(Object json, Class<R> type) {
        List<R> out = new ArrayList<>();
        if (!(json instanceof List<?> list)) {
            return out;
        }
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
        }
        try {
            Constructor<R> constructor = type.getDeclaredConstructor(types);
            for (Object item : list) {
                Map<?, ?> fields = item instanceof Map<?, ?> m ? m : Map.of();
                Object[] args = new Object[components.length];
                for (int i = 0; i < components.length; i++) {
                    args[i] = convert(fields.get(components[i].getName()), types[i]);
                }
                out.add(constructor.newInstance(args));
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName() + " from results.json", e);
        }
        return out;
    }

    private static Object convert(Object value, Class<?> type) {
        Double number = value instanceof Double d ? d : null;
        if (type == double.class) {
            return number == null ? Double.NaN : number;
        }
        if (type == long.class) {
            return number == null ? -1L : number.longValue();
        }
        if (type == int.class) {
            return number == null ? -1 : number.intValue();
        }
        if (type == Role.class) {
            return value instanceof String s ? Role.valueOf(s) : Role.PEER;
        }
        return value == null ? "—" : String.valueOf(value);
    }
}
