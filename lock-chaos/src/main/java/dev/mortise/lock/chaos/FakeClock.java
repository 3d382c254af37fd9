package dev.mortise.lock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A skewed wall clock for a worker JVM through libfaketime (Debian package {@code faketime}):
 * {@code LD_PRELOAD} of the library with a fixed offset. Only the wall clock moves
 * ({@code System.currentTimeMillis()}, {@code Instant.now()}); the monotonic clock
 * ({@code System.nanoTime()}) is left alone, as NTP would leave it.
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
        return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME", offset, "FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
}
