package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.common.KeySetResult;
import dev.mortise.lock.bench.common.UncontendedResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/** Writes the raw results as JSON (everything) and CSV (one file per table kind), for other tools. */
public final class RawWriter {

    private RawWriter() {
    }

    /** Writes {@code results.json} and the CSV tables into {@code dir}. */
    public static void write(RunReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.json"), json(report), StandardCharsets.UTF_8);
        writeTables(report, dir);
    }

    /** Writes only the CSV tables into {@code dir} (a re-render keeps the results.json it read). */
    public static void writeTables(RunReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder("group,id,label,role,threads,cycles,seconds,p50_us,p99_us,ops_per_s,alloc_bytes_per_cycle\n");
        for (UncontendedResult r : report.uncontended) {
            csv.append(String.join(",", r.group(), r.id(), quote(r.label()), r.role().name(),
                    Integer.toString(r.threads()), Long.toString(r.cycles()), num(r.seconds()), num(r.p50()),
                    num(r.p99()), num(r.opsPerSecond()), num(r.allocatedBytesPerCycle()))).append('\n');
        }
        Files.writeString(dir.resolve("uncontended.csv"), csv, StandardCharsets.UTF_8);
        StringBuilder handoff = new StringBuilder(
                "group,id,label,role,threads,grants,grants_jvm1,grants_jvm2,handoffs,p50_us,p99_us,cross_handoffs,cross_p50_us,cross_p99_us\n");
        for (HandoffResult r : report.handoffs) {
            handoff.append(String.join(",", r.group(), r.id(), quote(r.label()), r.role().name(),
                    Integer.toString(r.threads()), Long.toString(r.grants()), Long.toString(r.grantsJvm0()),
                    Long.toString(r.grantsJvm1()), Integer.toString(r.handoffs()),
                    num(r.p50()), num(r.p99()), Integer.toString(r.crossHandoffs()), num(r.crossP50()),
                    num(r.crossP99()))).append('\n');
        }
        Files.writeString(dir.resolve("handoff.csv"), handoff, StandardCharsets.UTF_8);
        if (!report.keySets.isEmpty()) {
            StringBuilder keySets = new StringBuilder("scenario,group,id,label,role,threads,keys,keys_per_op,read_percent,"
                    + "seconds,ops,ops_per_s,reads,read_p50_us,read_p99_us,writes,write_p50_us,write_p99_us,timeouts,server_requests_per_op\n");
            for (KeySetResult r : report.keySets) {
                keySets.append(String.join(",", r.scenario(), r.group(), r.id(), quote(r.label()), r.role().name(),
                        Integer.toString(r.threads()), Integer.toString(r.keys()), Integer.toString(r.keysPerOp()),
                        Integer.toString(r.readPercent()), num(r.seconds()), Long.toString(r.ops()),
                        num(r.opsPerSecond()), Long.toString(r.reads()), num(r.readP50()), num(r.readP99()),
                        Long.toString(r.writes()), num(r.writeP50()), num(r.writeP99()), Long.toString(r.timeouts()), num(r.serverRequestsPerOp())))
                        .append('\n');
            }
            Files.writeString(dir.resolve("keysets.csv"), keySets, StandardCharsets.UTF_8);
        }
    }

    private static String num(double value) {
        return Double.isNaN(value) ? "" : String.format(java.util.Locale.ROOT, "%.3f", value);
    }

    private static String quote(String text) {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }

    private static String json(RunReport report) {
        StringBuilder out = new StringBuilder("{\n");
        out.append("  \"command\": ").append(string(report.command)).append(",\n");
        out.append("  \"quick\": ").append(report.quick).append(",\n");
        out.append("  \"cores\": ").append(report.cores).append(",\n");
        out.append("  \"environment\": ").append(map(report.environment)).append(",\n");
        out.append("  \"servers\": ").append(map(report.servers)).append(",\n");
        out.append("  \"libraries\": ").append(map(report.libraries)).append(",\n");
        out.append("  \"uncontended\": ").append(records(report.uncontended)).append(",\n");
        out.append("  \"handoff\": ").append(records(report.handoffs)).append(",\n");
        out.append("  \"keySets\": ").append(records(report.keySets)).append(",\n");
        out.append("  \"manyLeases\": ").append(records(report.manyLeases)).append(",\n");
        out.append("  \"waiters\": ").append(records(report.waiters)).append(",\n");
        out.append("  \"deadlockOverhead\": ").append(records(report.deadlockOverhead)).append(",\n");
        out.append("  \"cycleBreaks\": ").append(records(report.cycleBreaks)).append(",\n");
        out.append("  \"annotationOverhead\": ").append(records(report.overhead)).append(",\n");
        StringJoiner findings = new StringJoiner(", ", "[", "]");
        report.findings.forEach(f -> findings.add(string(f)));
        out.append("  \"findings\": ").append(findings).append("\n}\n");
        return out.toString();
    }

    private static String map(Map<String, String> map) {
        StringJoiner joiner = new StringJoiner(", ", "{", "}");
        map.forEach((k, v) -> joiner.add(string(k) + ": " + string(v)));
        return joiner.toString();
    }

    /** Records as JSON objects, through their component accessors. */
    private static String records(List<? extends Record> records) {
        StringJoiner list = new StringJoiner(",\n    ", "[\n    ", "\n  ]");
        if (records.isEmpty()) {
            return "[]";
        }
        for (Record record : records) {
            StringJoiner object = new StringJoiner(", ", "{", "}");
            for (var component : record.getClass().getRecordComponents()) {
                try {
                    Object value = component.getAccessor().invoke(record);
                    object.add(string(component.getName()) + ": " + value(value));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
            list.add(object.toString());
        }
        return list.toString();
    }

    private static String value(Object value) {
        if (value instanceof Double d) {
            // Full precision (the shortest text that reads back as the same double): a re-rendered page
            // (--report-from) computes its ratios and roundings from exactly the measured values.
            return d.isNaN() || d.isInfinite() ? "null" : d.toString();
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return string(String.valueOf(value));
    }

    private static String string(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
