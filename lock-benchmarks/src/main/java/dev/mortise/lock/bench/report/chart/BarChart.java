package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.Groups;
import dev.mortise.lock.bench.common.Role;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * The one chart shape every benchmark picture uses, drawn with Java2D (headless): horizontal bars, one row
 * per library, one or more columns side by side (a measure each, e.g. latency and throughput), rows grouped
 * in titled sections (a backend each, or one untitled section). Each column of each section has its own
 * linear scale starting at zero, so the rows of one section compare at a glance; figures across sections
 * compare by their printed values. A bar may carry a tick (a p99, an error bound) drawn as a line from the
 * bar's end; the scale follows the bars, not the ticks (on a shared machine a p99 can be tens of p50s and
 * would squash every bar), and a tick beyond it is clipped with an arrow and its value printed.
 *
 * <p>Colours say the role: Mortise, a peer library, a floor (bare round trips). A value that was not
 * measured (NaN or negative) gets no bar and prints "—". Instances are built once and then only written;
 * not thread-safe while being built.
 */
public final class BarChart {

    /** One bar: its value, an optional tick (NaN for none) and the text printed after it. */
    public record Bar(double value, double tick, String text) {

        /** A plain bar; not measured (NaN or negative) prints "—". */
        public static Bar of(double value, String text) {
            return new Bar(value, Double.NaN, text);
        }

        /** A latency bar: the p50 as the bar, the p99 as the tick, both printed in µs or ms. */
        public static Bar latency(double p50, double p99) {
            return new Bar(p50, p99, Units.micros(p50) + "   (p99 " + Units.micros(p99) + ")");
        }

        boolean measured() {
            return !Double.isNaN(value) && value >= 0;
        }

        boolean ticked() {
            return measured() && !Double.isNaN(tick) && tick >= 0;
        }
    }

    /** One library's row: its label, its role (the colour) and one bar per column. */
    public record Row(String label, Role role, List<Bar> bars) {

        public Row(String label, Role role, Bar... bars) {
            this(label, role, List.of(bars));
        }
    }

    /** A column: its header and how its axis values print. */
    public record Column(String header, DoubleFunction<String> axis) {
    }

    private record Section(String title, List<Row> rows) {
    }

    private static final int MARGIN = 20;
    private static final int LABEL_WIDTH = 340;
    private static final int COLUMN_WIDTH = 420;
    /** Room right of a column's plot for the printed values. */
    private static final int TEXT_ROOM = 160;
    private static final int BAR_HEIGHT = 22;
    private static final int BAR_GAP = 8;
    private static final int HEADER = 88;
    private static final int COLUMN_HEADER = 26;
    private static final int SECTION_TITLE = 30;
    private static final int AXIS = 40;
    static final Color MORTISE = new Color(0x1f5fbf);
    static final Color PEER = new Color(0xe08a2c);
    static final Color FLOOR = new Color(0x8fbf7f);
    private static final Color TEXT = new Color(0x222222);
    private static final Color GRID = new Color(0xdddddd);

    private final String title;
    private final List<Column> columns;
    private final List<Section> sections = new ArrayList<>();
    private String floorLegend = "floor (bare round trips)";

    public BarChart(String title, Column... columns) {
        this.title = title;
        this.columns = List.of(columns);
    }

    /** What the legend calls the floor rows, when they are not bare round trips. */
    public BarChart floorLegend(String text) {
        this.floorLegend = text;
        return this;
    }

    /** Adds a section of rows under {@code title} (null: no title); each row has a bar per column. */
    public BarChart section(String title, List<Row> rows) {
        for (Row row : rows) {
            if (row.bars().size() != columns.size()) {
                throw new IllegalArgumentException("row " + row.label() + " has " + row.bars().size()
                        + " bars for " + columns.size() + " columns");
            }
        }
        if (!rows.isEmpty()) {
            sections.add(new Section(title, List.copyOf(rows)));
        }
        return this;
    }

    /** Adds a section per backend group of {@code results}, in their order, titled as the page titles it. */
    public <T> BarChart sectionPerGroup(List<T> results, Function<T, String> group, Function<T, Row> row) {
        results.stream().map(group).distinct().forEach(g -> section(Groups.title(g),
                results.stream().filter(r -> group.apply(r).equals(g)).map(row).toList()));
        return this;
    }

    /** Writes the chart as a PNG to {@code file}, creating its directory. */
    public void write(Path file) throws IOException {
        int width = MARGIN + LABEL_WIDTH + columns.size() * COLUMN_WIDTH;
        int height = HEADER + COLUMN_HEADER + MARGIN;
        for (Section section : sections) {
            height += (section.title() == null ? 0 : SECTION_TITLE) + section.rows().size() * (BAR_HEIGHT + BAR_GAP)
                    + AXIS;
        }
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(TEXT);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, MARGIN, MARGIN + 18);
            legend(g, MARGIN, MARGIN + 48);
            int y = HEADER;
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            for (int c = 0; c < columns.size(); c++) {
                g.drawString(columns.get(c).header(), columnX(c), y + 16);
            }
            y += COLUMN_HEADER;
            for (Section section : sections) {
                y = section(g, section, y);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    private static int columnX(int column) {
        return MARGIN + LABEL_WIDTH + column * COLUMN_WIDTH;
    }

    private void legend(Graphics2D g, int x, int y) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        sections.forEach(s -> s.rows().forEach(r -> roles.add(r.role())));
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        for (Role role : roles) {
            String name = switch (role) {
                case MORTISE -> "Mortise";
                case PEER -> "peer library";
                case FLOOR -> floorLegend;
            };
            g.setColor(colour(role));
            g.fillRect(x, y - 11, 14, 14);
            g.setColor(TEXT);
            g.drawString(name, x + 20, y);
            x += 30 + g.getFontMetrics().stringWidth(name);
        }
    }

    private static Color colour(Role role) {
        return role == Role.MORTISE ? MORTISE : role == Role.FLOOR ? FLOOR : PEER;
    }

    private int section(Graphics2D g, Section section, int y) {
        if (section.title() != null) {
            g.setColor(TEXT);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString(section.title(), MARGIN, y + 20);
            y += SECTION_TITLE;
        }
        int top = y;
        int bottom = top + section.rows().size() * (BAR_HEIGHT + BAR_GAP);
        for (int c = 0; c < columns.size(); c++) {
            int column = c;
            double[] values = section.rows().stream().map(r -> r.bars().get(column)).filter(Bar::measured)
                    .mapToDouble(Bar::value).toArray();
            boolean ticks = section.rows().stream().anyMatch(r -> r.bars().get(column).ticked());
            double scaleMax = niceCeiling(Arrays.stream(values).max().orElse(1) * (ticks ? 1.5 : 1.15) / 4) * 4;
            if (values.length > 0) { // nothing measured in this column: only the dashes, no scale
                axis(g, columns.get(c), columnX(c), top, bottom, scaleMax);
            }
            int rowY = top;
            for (Row row : section.rows()) {
                bar(g, row, row.bars().get(c), columnX(c), rowY, scaleMax);
                rowY += BAR_HEIGHT + BAR_GAP;
            }
        }
        int rowY = top;
        for (Row row : section.rows()) {
            g.setFont(new Font(Font.SANS_SERIF, row.role() == Role.MORTISE ? Font.BOLD : Font.PLAIN, 13));
            FontMetrics metrics = g.getFontMetrics();
            g.setColor(TEXT);
            String label = fit(row.label(), metrics, LABEL_WIDTH - 20);
            g.drawString(label, MARGIN + LABEL_WIDTH - 10 - metrics.stringWidth(label), rowY + BAR_HEIGHT - 6);
            rowY += BAR_HEIGHT + BAR_GAP;
        }
        return bottom + AXIS;
    }

    private static void axis(Graphics2D g, Column column, int x, int top, int bottom, double scaleMax) {
        int plotWidth = COLUMN_WIDTH - TEXT_ROOM;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (int i = 0; i <= 4; i++) {
            int lineX = x + (int) Math.round(plotWidth * i / 4.0);
            g.setColor(GRID);
            g.drawLine(lineX, top, lineX, bottom);
            g.setColor(TEXT);
            String text = column.axis().apply(scaleMax * i / 4);
            g.drawString(text, lineX - g.getFontMetrics().stringWidth(text) / 2, bottom + 16);
        }
    }

    private static void bar(Graphics2D g, Row row, Bar bar, int x, int y, double scaleMax) {
        int plotWidth = COLUMN_WIDTH - TEXT_ROOM;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        if (!bar.measured()) {
            g.setColor(TEXT);
            g.drawString("—", x + 4, y + BAR_HEIGHT - 6);
            return;
        }
        int end = x + (int) Math.round(plotWidth * Math.min(bar.value(), scaleMax) / scaleMax);
        g.setColor(colour(row.role()));
        g.fillRect(x, y, Math.max(1, end - x), BAR_HEIGHT);
        int textX = end + 6;
        g.setColor(TEXT);
        if (bar.ticked()) {
            int tick = x + (int) Math.round(plotWidth * Math.min(bar.tick(), scaleMax) / scaleMax);
            g.setStroke(new BasicStroke(2));
            g.drawLine(tick, y + 2, tick, y + BAR_HEIGHT - 2);
            g.drawLine(end, y + BAR_HEIGHT / 2, tick, y + BAR_HEIGHT / 2);
            g.setStroke(new BasicStroke(1));
            boolean clipped = bar.tick() > scaleMax;
            if (clipped) {
                g.fillPolygon(new int[] {tick, tick + 7, tick}, new int[] {y + 4, y + BAR_HEIGHT / 2, y + BAR_HEIGHT - 4}, 3);
            }
            textX = Math.max(end, tick) + (clipped ? 12 : 6);
        }
        int textWidth = g.getFontMetrics().stringWidth(bar.text());
        int limit = x + COLUMN_WIDTH - 12;
        if (textX + textWidth > limit) {
            // Over the bar rather than into the next column, on a white patch so it stays legible.
            textX = limit - textWidth;
            g.setColor(Color.WHITE);
            g.fillRect(textX - 2, y + 3, textWidth + 4, BAR_HEIGHT - 6);
            g.setColor(TEXT);
        }
        g.drawString(bar.text(), textX, y + BAR_HEIGHT - 6);
    }

    private static String fit(String text, FontMetrics metrics, int width) {
        if (metrics.stringWidth(text) <= width) {
            return text;
        }
        String shorter = text;
        while (shorter.length() > 4 && metrics.stringWidth(shorter + "…") > width) {
            shorter = shorter.substring(0, shorter.length() - 1);
        }
        return shorter + "…";
    }

    /** 1, 2 or 5 times a power of ten, at least {@code value}. */
    static double niceCeiling(double value) {
        if (value <= 0 || Double.isNaN(value)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }
}
