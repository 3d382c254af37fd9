package dev.mortise.lock.bench.run;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Progress lines for the console and findings for the report (missing subjects, failures). Thread-safe. */
public final class Notes {

    private final List<String> findings = new ArrayList<>();
    private final Consumer<String> console;
    private final long start = System.nanoTime();

    public Notes(Consumer<String> console) {
        this.console = console;
    }

    /** A progress line, prefixed with the time since the run began (the full run must stay short). */
    public void progress(String line) {
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        console.accept(String.format("[%2d:%02d] %s", seconds / 60, seconds % 60, line));
    }

    /** Something the report must say (a subject that failed or is missing, and why). */
    public synchronized void finding(String line) {
        findings.add(line);
        console.accept("NOTE: " + line);
    }

    public synchronized List<String> findings() {
        return List.copyOf(findings);
    }
}
