package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.subject.Role;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws the latency chart with Java2D: one panel per backend, one bar per library (p50 of an
 * uncontended acquire+release on one thread) with its p99 as a tick, each panel on its own
 * linear scale so that the libraries of one backend compare at a glance.
 */
public final class ChartWriter {

    private static final int WIDTH = 1200;
    private static final int LABEL_WIDTH = 380;
    private static final int BAR_HEIGHT = 22;
    private static final int BAR_GAP = 8;
    private static final int PANEL_TITLE = 34;
    private static final int PANEL_AXIS = 30;
    private static final int MARGIN = 20;
    private static final Color MORTISE = new Color(0x1f5fbf);
    private static final Color PEER = new Color(0xe08a2c);
    private static final Color FLOOR = new Color(0x8fbf7f);
    private static final Color TEXT = new Color(0x222222);
    private static final Color GRID = new Color(0xdddddd);
    private static final Map<String, String> TITLES = Map.of("redis", "Redis", "etcd", "etcd", "zookeeper", "ZooKeeper",
            "postgres", "JDBC on PostgreSQL", "mariadb", "JDBC on MariaDB", "local", "In-process");

    private ChartWriter() {
    }

    public static void write(RunReport report, Path file) throws IOException {
        Map<String, List<UncontendedResult>> panels = new LinkedHashMap<>();
        for (UncontendedResult r : report.uncontended) {
            if (r.threads() == 1) {
                panels.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r);
            }
        }
        int height = MARGIN * 2 + 60;
        for (List<UncontendedResult> panel : panels.values()) {
            height += PANEL_TITLE + panel.size() * (BAR_HEIGHT + BAR_GAP) + PANEL_AXIS + 16;
        }
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(TEXT);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString("Uncontended acquire + release, 1 thread: p50 (bar) and p99 (tick), µs", MARGIN, MARGIN + 18);
            legend(g, MARGIN, MARGIN + 42);
            int y = MARGIN + 60;
            for (Map.Entry<String, List<UncontendedResult>> panel : panels.entrySet()) {
                y = panel(g, TITLES.getOrDefault(panel.getKey(), panel.getKey()), panel.getValue(), y);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    private static void legend(Graphics2D g, int x, int y) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        Object[][] entries = {{MORTISE, "Mortise"}, {PEER, "peer library"}, {FLOOR, "floor (bare round trips)"}};
        for (Object[] entry : entries) {
            g.setColor((Color) entry[0]);
            g.fillRect(x, y - 11, 14, 14);
            g.setColor(TEXT);
            g.drawString((String) entry[1], x + 20, y);
            x += 30 + g.getFontMetrics().stringWidth((String) entry[1]);
        }
    }

    private static int panel(Graphics2D g, String title, List<UncontendedResult> rows, int y) {
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, MARGIN, y + 22);
        y += PANEL_TITLE;
        // The scale follows the p50s: on a shared machine a p99 can be tens of p50s and would
        // squash every bar; a p99 beyond the scale is drawn clipped, with its value in the label.
        double max = rows.stream().mapToDouble(UncontendedResult::p50).max().orElse(1) * 1.5;
        double scaleMax = niceCeiling(max / 4) * 4;
        int plotX = LABEL_WIDTH;
        int plotWidth = WIDTH - LABEL_WIDTH - MARGIN - 200;
        int top = y;
        int bottom = y + rows.size() * (BAR_HEIGHT + BAR_GAP);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (int i = 0; i <= 4; i++) {
            double value = scaleMax * i / 4;
            int x = plotX + (int) Math.round(plotWidth * i / 4.0);
            g.setColor(GRID);
            g.drawLine(x, top, x, bottom);
            g.setColor(TEXT);
            String text = format(value);
            g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, bottom + 16);
        }
        for (UncontendedResult r : rows) {
            g.setFont(new Font(Font.SANS_SERIF, r.role() == Role.MORTISE ? Font.BOLD : Font.PLAIN, 13));
            FontMetrics metrics = g.getFontMetrics();
            g.setColor(TEXT);
            String label = fit(r.label(), metrics, LABEL_WIDTH - MARGIN - 10);
            g.drawString(label, LABEL_WIDTH - 10 - metrics.stringWidth(label), y + BAR_HEIGHT - 6);
            int p50 = (int) Math.round(plotWidth * r.p50() / scaleMax);
            g.setColor(r.role() == Role.MORTISE ? MORTISE : r.role() == Role.FLOOR ? FLOOR : PEER);
            g.fillRect(plotX, y, Math.max(1, p50), BAR_HEIGHT);
            int p99 = plotX + (int) Math.round(plotWidth * Math.min(r.p99(), scaleMax) / scaleMax);
            g.setColor(TEXT);
            g.setStroke(new BasicStroke(2));
            g.drawLine(p99, y + 2, p99, y + BAR_HEIGHT - 2);
            g.drawLine(plotX + p50, y + BAR_HEIGHT / 2, p99, y + BAR_HEIGHT / 2);
            g.setStroke(new BasicStroke(1));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            boolean clipped = r.p99() > scaleMax;
            if (clipped) {
                g.fillPolygon(new int[] {p99, p99 + 7, p99}, new int[] {y + 4, y + BAR_HEIGHT / 2, y + BAR_HEIGHT - 4}, 3);
            }
            String value = format(r.p50()) + "   (p99 " + format(r.p99()) + ")";
            int textX = Math.max(plotX + p50, p99) + (clipped ? 12 : 6);
            if (textX + g.getFontMetrics().stringWidth(value) > WIDTH - 4) {
                textX = WIDTH - 4 - g.getFontMetrics().stringWidth(value);
                g.setColor(Color.WHITE);
                g.fillRect(textX - 2, y + 3, g.getFontMetrics().stringWidth(value) + 4, BAR_HEIGHT - 6);
                g.setColor(TEXT);
            }
            g.drawString(value, textX, y + BAR_HEIGHT - 6);
            y += BAR_HEIGHT + BAR_GAP;
        }
        return bottom + PANEL_AXIS + 16;
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

    private static String format(double micros) {
        if (micros >= 10_000) {
            return String.format("%.0f ms", micros / 1000);
        }
        if (micros >= 1000) {
            return String.format("%.1f ms", micros / 1000).replace(".0 ms", " ms");
        }
        return String.format("%.0f µs", micros);
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
