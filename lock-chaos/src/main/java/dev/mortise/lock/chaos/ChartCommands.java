package dev.mortise.lock.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The chart-only commands of {@link ChaosRun}: {@code --chart-from} (the takeover chart of an
 * earlier run's JSON) and {@code --soak-chart-from} (the soak picture of soaks run as separate
 * commands). Each writes its picture next to {@code --doc}, or into {@code --out} without one.
 */
final class ChartCommands {

    private ChartCommands() {
    }

    /** Writes the takeover chart of the run result {@code result} ({@link ReliabilityReport#TAKEOVER_SVG}). */
    static void takeover(Path result, Path doc, Path out) throws IOException {
        String json = Files.readString(result);
        String date = json.replaceAll("(?s)^\\{\"date\":\"([^\"]+)\".*", "$1");
        Path chart = doc != null ? doc.resolveSibling(ReliabilityReport.TAKEOVER_SVG)
                : out.resolve(ReliabilityReport.TAKEOVER_SVG);
        Files.createDirectories(chart.toAbsolutePath().getParent());
        Files.writeString(chart, Charts.takeoverSvg(Charts.takeoverBarsFromJson(json),
                "Takeover after each fault (" + date + ")"));
        System.out.println("chaos: wrote " + chart + " from " + result);
    }

    /** Writes the soak picture of the soaks' {@code soak.json} files ({@link Soak#SOAK_SVG}). */
    static void soak(List<Path> soakResults, Path doc, Path out) throws IOException {
        List<String> jsons = new ArrayList<>();
        for (Path file : soakResults) {
            jsons.add(Files.readString(file));
        }
        Path chart = doc != null ? doc.resolveSibling(Soak.SOAK_SVG) : out.resolve(Soak.SOAK_SVG);
        Files.createDirectories(chart.toAbsolutePath().getParent());
        Files.writeString(chart, Soak.chartFromJson(jsons));
        System.out.println("chaos: wrote " + chart + " from " + soakResults);
    }
}
