package dev.mortise.lock.bench.report;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/** The machine, OS, JVM and date of a run, as the report prints them. */
public final class Environment {

    private Environment() {
    }

    public static Map<String, String> describe() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("Mortise commit", commit());
        env.put("Date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
        env.put("CPU", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores visible to the JVM");
        env.put("Memory", memory());
        env.put("Load average at start", loadAverage());
        env.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                + System.getProperty("os.arch") + ")");
        env.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vm.vendor") + "), options: "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        return env;
    }

    /** The checkout's commit, and which modules had uncommitted changes when the run started. */
    private static String commit() {
        String head = git("rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "unknown (not a git checkout)";
        }
        java.util.Set<String> dirty = new java.util.TreeSet<>();
        for (String line : git("status", "--porcelain", "--untracked-files=no").split("\n")) {
            String path = line.length() > 3 ? line.substring(3) : "";
            if (path.startsWith("lock-") && !path.startsWith("lock-benchmarks/")) {
                dirty.add(path.substring(0, path.indexOf('/')));
            }
        }
        return dirty.isEmpty() ? head : head + " plus uncommitted changes in " + String.join(", ", dirty);
    }

    private static String git(String... args) {
        try {
            java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("git"));
            command.addAll(java.util.List.of(args));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return process.waitFor() == 0 ? out.strip() : "";
        } catch (Exception e) {
            return "";
        }
    }

    /**
     * The 1, 5 and 15 minute load averages from {@code /proc/loadavg}: on a shared machine they say
     * how much else was running (the run itself adds to them).
     */
    public static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " / " + parts[1] + " / " + parts[2] + " (1 / 5 / 15 min)";
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown CPU");
        } catch (Exception e) {
            return "unknown CPU";
        }
    }

    private static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().map(l -> {
                        long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
                        return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
                    }).orElse("unknown");
        } catch (Exception e) {
            return "unknown";
        }
    }
}
