package dev.mortise.lock.bench.report.chart;

/** How the charts print values; a value that was not measured (NaN or negative) prints "—". */
public final class Units {

    private Units() {
    }

    /** Microseconds as "157 µs", "1.2 ms" or "40 ms". */
    public static String micros(double micros) {
        if (missing(micros)) {
            return "—";
        }
        if (micros >= 10_000) {
            return String.format("%.0f ms", micros / 1000);
        }
        if (micros >= 1000) {
            return String.format("%.1f ms", micros / 1000).replace(".0 ms", " ms");
        }
        return String.format("%.0f µs", micros);
    }

    /** A whole number with thousands separators, then {@code unit} if not empty. */
    public static String whole(double value, String unit) {
        return missing(value) ? "—" : String.format("%,.0f", value) + (unit.isEmpty() ? "" : " " + unit);
    }

    /** A number with {@code decimals} decimals. */
    public static String decimal(double value, int decimals) {
        return missing(value) ? "—" : String.format("%." + decimals + "f", value);
    }

    /** An axis value: whole when large, else with as few decimals as read well. */
    public static String axis(double value) {
        return value >= 10 || value == 0 ? whole(value, "") : decimal(value, value >= 1 ? 1 : 2);
    }

    private static boolean missing(double value) {
        return Double.isNaN(value) || value < 0;
    }
}
