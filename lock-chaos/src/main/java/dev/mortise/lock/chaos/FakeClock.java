package dev.mortise.lock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A skewed wall clock for a worker JVM through libfaketime (Debian package {@code faketime}):
 * {@code LD_PRELOAD} of the library with a fixed offset: the wall clock
 * ({@code System.currentTimeMillis()}, {@code Instant.now()}) is that far off the machine's; the
 * monotonic clock ({@code System.nanoTime()}) is shifted by the same constant, so the intervals
 * it measures (leases, local validity) stay true, as they would on a host whose wall clock is
 * wrong.
 */
public final class FakeClock {

    private static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private FakeClock() {
    }

    /** The environment that starts a process with its wall clock {@code offsetMillis} off. */
    public static Map<String, String> environment(long offsetMillis) {
        if (!Files.isReadable(LIBRARY)) {
            throw new IllegalStateException("clock-skew fault: " + LIBRARY + " is missing; install it with"
                    + " 'apt-get install faketime' (or leave clock-skew out of --faults)");
        }
        // libfaketime takes seconds with a fraction: "+5.000s"
        String offset = (offsetMillis >= 0 ? "+" : "-") + Math.abs(offsetMillis) / 1000 + "."
                + String.format("%03d", Math.abs(offsetMillis) % 1000) + "s";
        // The monotonic clock moves by the same constant, which changes no interval the JVM
        // measures with it. (FAKETIME_DONT_FAKE_MONOTONIC=1 would leave it alone, but makes a
        // JVM start 10 times slower with this libfaketime.)
        return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME", offset);
    }
}
