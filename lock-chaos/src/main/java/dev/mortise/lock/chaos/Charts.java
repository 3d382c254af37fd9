package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's pictures as self-contained SVG text (no library, no fonts beyond the viewer's
 * sans-serif): the takeover time per backend × fault, and the soak's resource curves.
 * Stateless; every method is a pure function of its arguments.
 */
public final class Charts {

    private Charts() {
    }

    /** One bar of the takeover chart: a run's label, its takeover p50 and max, and the bound. */
    public record TakeoverBar(String label, long p50, long max, long count, long boundMillis) {
    }

    /** The bars of every result with a measured takeover, in the results' order. */
    public static List<TakeoverBar> takeoverBars(List<RunResult> results) {
        List<TakeoverBar> bars = new ArrayList<>();
        for (RunResult r : results) {
            if (r.takeovers().isEmpty()) {
                continue;
            }
            long bound = r.fault().boundedTakeover()
                    ? r.takeovers().stream().mapToLong(LedgerChecker.Takeover::victimLeaseMs).max().orElse(0) + 1000
                    : -1;
            bars.add(new TakeoverBar(r.backend() + " × " + r.fault().label() + " × " + r.workload().label(),
                    r.takeoverPercentile(50), r.takeoverPercentile(100), r.takeovers().size(), bound));
        }
        return bars;
    }

    private static final java.util.regex.Pattern RESULT = java.util.regex.Pattern.compile(
            "\\{\"backend\":\"([^\"]+)\",\"fault\":\"([^\"]+)\",\"workload\":\"([^\"]+)\".*?"
                    + "\"takeoverMillis\":\\[([^\\]]*)\\],\"takeoverVictimLeaseMs\":\\[([^\\]]*)\\]");

    /**
     * The bars of a result JSON written by an earlier run ({@link ReliabilityReport#json}), so a
     * published run's chart can be drawn without running it again.
     */
    public static List<TakeoverBar> takeoverBarsFromJson(String json) {
        List<TakeoverBar> bars = new ArrayList<>();
        java.util.regex.Matcher m = RESULT.matcher(json);
        while (m.find()) {
            List<Long> millis = numbers(m.group(4));
            if (millis.isEmpty()) {
                continue;
            }
            Fault fault = Fault.of(m.group(2));
            List<Long> sorted = millis.stream().sorted().toList();
            long p50 = sorted.get(Math.max(0, (int) Math.ceil(sorted.size() / 2.0) - 1));
            long bound = fault.boundedTakeover()
                    ? numbers(m.group(5)).stream().mapToLong(Long::longValue).max().orElse(0) + 1000 : -1;
            bars.add(new TakeoverBar(m.group(1) + " × " + m.group(2) + " × " + m.group(3), p50,
                    sorted.get(sorted.size() - 1), millis.size(), bound));
        }
        return bars;
    }

    private static List<Long> numbers(String list) {
        return java.util.Arrays.stream(list.split(",")).map(String::trim).filter(t -> !t.isEmpty())
                .map(Long::parseLong).toList();
    }

    /**
     * Horizontal bars, one row per backend × fault × workload: the median takeover (dark), the
     * slowest (light, behind it), and for faults with a bound (a holder's death) a red tick at
     * the victim's lease + 1 s. Server faults have no bound (recovery, reported only).
     */
    public static String takeoverSvg(List<TakeoverBar> bars, String title) {
        int labelWidth = 330;
        int plotWidth = 520;
        int row = 18;
        int top = 46;
        int height = top + Math.max(1, bars.size()) * row + 40;
        long scaleMax = 1000;
        for (TakeoverBar b : bars) {
            scaleMax = Math.max(scaleMax, Math.max(b.max(), b.boundMillis()));
        }
        scaleMax = roundUp(scaleMax);
        StringBuilder svg = header(labelWidth + plotWidth + 120, height);
        svg.append(text(10, 18, title, 14, "bold"));
        svg.append(text(10, 36, "takeover ms: dark = median, light = slowest, red tick = lease + 1 s"
                + " (holder faults); (n) = takeovers measured", 11, "normal"));
        for (long tick = 0; tick <= scaleMax; tick += scaleMax / 5) {
            double x = labelWidth + plotWidth * (double) tick / scaleMax;
            svg.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>%n", x,
                    top - 4, x, top + bars.size() * row));
            svg.append(text(x - 10, top + bars.size() * row + 14, Long.toString(tick), 10, "normal"));
        }
        for (int i = 0; i < bars.size(); i++) {
            TakeoverBar b = bars.get(i);
            int y = top + i * row;
            svg.append(text(10, y + 12, b.label(), 11, "normal"));
            svg.append(rect(labelWidth, y + 2, plotWidth * (double) b.max() / scaleMax, row - 5, "#9ecae1"));
            svg.append(rect(labelWidth, y + 2, plotWidth * (double) b.p50() / scaleMax, row - 5, "#3182bd"));
            if (b.boundMillis() > 0) {
                double x = labelWidth + plotWidth * (double) b.boundMillis() / scaleMax;
                svg.append(String.format(Locale.ROOT,
                        "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#d62728' stroke-width='2'/>%n", x, y, x,
                        y + row - 2));
            }
            svg.append(text(labelWidth + plotWidth + 8, y + 12, b.p50() + " / " + b.max() + " (" + b.count() + ")",
                    10, "normal"));
        }
        return svg.append("</svg>\n").toString();
    }

    /**
     * Small multiples for the soak: one panel per metric, one line per worker JVM (colours named
     * in a legend below), x = time since the worker started, y = the metric (from 0).
     *
     * @param series        metric name → worker id → samples, one per {@code sampleSeconds}
     * @param sampleSeconds the interval between samples
     */
    public static String soakSvg(Map<String, Map<String, List<Long>>> series, String title, long sampleSeconds) {
        int panelWidth = 420;
        int panelHeight = 150;
        int columns = 2;
        int rows = (series.size() + columns - 1) / columns;
        List<String> workers = series.values().stream().flatMap(m -> m.keySet().stream()).distinct().toList();
        int legendTop = 40 + rows * (panelHeight + 60);
        StringBuilder svg = header(columns * (panelWidth + 40) + 20, legendTop + 20 + 14 * ((workers.size() + 3) / 4));
        svg.append(text(10, 20, title, 14, "bold"));
        String[] colours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
        int panel = 0;
        for (Map.Entry<String, Map<String, List<Long>>> metric : series.entrySet()) {
            int x0 = 50 + (panel % columns) * (panelWidth + 40);
            int y0 = 50 + (panel / columns) * (panelHeight + 60);
            long max = 1;
            int length = 2;
            for (List<Long> samples : metric.getValue().values()) {
                for (long v : samples) {
                    max = Math.max(max, v);
                }
                length = Math.max(length, samples.size());
            }
            max = roundUp(max);
            svg.append(text(x0, y0 - 8, metric.getKey() + " (max axis " + max + ")", 12, "bold"));
            svg.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='none'"
                    + " stroke='#999'/>%n", x0, y0, panelWidth, panelHeight));
            svg.append(text(x0, y0 + panelHeight + 14, "0 min", 10, "normal"));
            long seconds = (length - 1) * sampleSeconds;
            svg.append(text(x0 + panelWidth - 50, y0 + panelHeight + 14, seconds % 60 == 0 ? seconds / 60 + " min"
                    : seconds + " s", 10, "normal"));
            for (Map.Entry<String, List<Long>> worker : metric.getValue().entrySet()) {
                List<Long> samples = worker.getValue();
                StringBuilder points = new StringBuilder();
                for (int i = 0; i < samples.size(); i++) {
                    double x = x0 + panelWidth * (double) i / (length - 1);
                    double y = y0 + panelHeight - panelHeight * (double) samples.get(i) / max;
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                }
                String c = colours[workers.indexOf(worker.getKey()) % colours.length];
                svg.append("<polyline fill='none' stroke='").append(c).append("' stroke-width='1.5' points='")
                        .append(points.toString().trim()).append("'/>\n");
            }
            panel++;
        }
        for (int i = 0; i < workers.size(); i++) {
            double x = 50 + (i % 4) * 220;
            double y = legendTop + 10 + 14 * (i / 4);
            svg.append(rect(x, y - 8, 12, 8, colours[i % colours.length]));
            svg.append(text(x + 16, y, workers.get(i), 10, "normal"));
        }
        return svg.append("</svg>\n").toString();
    }

    /** The next 1, 2 or 5 × 10^n at or above {@code v}: a readable axis end. */
    static long roundUp(long v) {
        long step = 1;
        while (true) {
            for (long m : new long[] {1, 2, 5}) {
                if (m * step >= v) {
                    return m * step;
                }
            }
            step *= 10;
        }
    }

    private static StringBuilder header(int width, int height) {
        return new StringBuilder(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d'"
                + " height='%d' font-family='sans-serif'>%n<rect width='100%%' height='100%%' fill='white'/>%n",
                width, height));
    }

    private static String rect(double x, double y, double width, double height, String fill) {
        return String.format(Locale.ROOT, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>%n", x, y,
                Math.max(0, width), height, fill);
    }

    private static String text(double x, double y, String s, int size, String weight) {
        return String.format(Locale.ROOT, "<text x='%.1f' y='%.1f' font-size='%d' font-weight='%s'>%s</text>%n", x, y,
                size, weight, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&apos;");
    }
}
