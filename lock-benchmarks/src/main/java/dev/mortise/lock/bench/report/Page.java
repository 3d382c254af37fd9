package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.common.Groups;
import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.bench.report.chart.BarChart;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark page being written by {@link MarkdownWriter}'s sections: its text, the charts its links
 * name, and the formats every table shares. A figure the report lacks (NaN, a negative count: not
 * measured, or absent from an older results.json) prints "—". One instance per page; not thread-safe.
 */
final class Page {

    private final StringBuilder out = new StringBuilder();
    private final Map<String, BarChart> charts = new LinkedHashMap<>();

    /** Appends {@code text} and a newline. */
    void line(String text) {
        out.append(text).append('\n');
    }

    /** Appends {@code text} as it is (a shipped Markdown fragment). */
    void append(String text) {
        out.append(text);
    }

    /** Links {@code chart} (drawn later to {@code benchmarks/<file>}) with {@code alt} naming its table. */
    void chart(String file, String alt, BarChart chart) {
        if (charts.put(file, chart) != null) {
            throw new IllegalStateException("two charts named " + file);
        }
        line("![" + alt + "](benchmarks/" + file + ")");
        line("");
    }

    /** The page so far. */
    String text() {
        return out.toString();
    }

    /** The charts linked so far, by file name. */
    Map<String, BarChart> charts() {
        return Collections.unmodifiableMap(charts);
    }

    /** {@code %.1f}, or "—" when not measured. */
    static String decimal(double value) {
        return Double.isNaN(value) ? "—" : String.format("%.1f", value);
    }

    /** {@code %,.0f}, or "—" when not measured. */
    static String grouped(double value) {
        return Double.isNaN(value) ? "—" : String.format("%,.0f", value);
    }

    /** {@code %.0f}, or "—" when not measured. */
    static String whole(double value) {
        return Double.isNaN(value) ? "—" : String.format("%.0f", value);
    }

    /** {@code %,d}, or "—" for a count that was not recorded (negative). */
    static String count(long value) {
        return value < 0 ? "—" : String.format("%,d", value);
    }

    /** A group's heading. */
    static String title(String group) {
        return Groups.title(group);
    }

    /** A library's name in a table: Mortise bold, the floor italic. */
    static String name(String label, Role role) {
        return role == Role.MORTISE ? "**" + label + "**" : role == Role.FLOOR ? "_" + label + "_" : label;
    }

    /** The report's groups, in the order the uncontended, handoff and key-set results name them. */
    static Set<String> groups(RunReport report) {
        Set<String> groups = new LinkedHashSet<>();
        report.uncontended.forEach(r -> groups.add(r.group()));
        report.handoffs.forEach(r -> groups.add(r.group()));
        report.keySets.forEach(r -> groups.add(r.group()));
        return groups;
    }
}
