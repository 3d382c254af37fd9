package dev.mortise.lock.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Wrong and jumping wall clocks for the processes of a chaos run.
 *
 * <ul>
 *   <li>{@link #environment(long)}: a worker JVM whose wall clock is a fixed offset off the
 *       machine's (libfaketime, Debian package {@code faketime}, {@code FAKETIME=+5.000s}).
 *       libfaketime shifts the monotonic clock by the same constant, which changes no interval.</li>
 *   <li>{@link OffsetFile}: a wall clock that jumps while the process runs. The offset lives in
 *       a file the controller rewrites; the process re-reads it. Only the wall clock moves
 *       ({@code CLOCK_REALTIME}, {@code gettimeofday}, {@code time}); the monotonic clock does
 *       not, as with a real step of the system clock. JVMs and PostgreSQL get it through
 *       libfaketime ({@link OffsetFile#libfaketimeEnvironment()}); redis-server through a small
 *       LD_PRELOAD shim built from {@code clockjump.c} ({@link OffsetFile#shimEnvironment()}),
 *       because libfaketime 0.9.10 aborts a jemalloc redis-server at start-up ("Unexpected
 *       recursive calls to clock_gettime()"); etcd, a Go binary that reads the clock through the
 *       vDSO without libc, under a ptrace tracer built from {@code clocktrace.c}
 *       ({@link OffsetFile#tracerCommand()}): it hides the vDSO from the program, so every
 *       wall-clock read becomes a system call, which a seccomp filter hands to the tracer, which
 *       answers it with the machine's wall clock plus the offset.</li>
 * </ul>
 */
public final class FakeClock {

    private static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private static Path shim;
    private static Path tracer;

    private FakeClock() {
    }

    /** The environment that starts a process with its wall clock {@code offsetMillis} off. */
    public static Map<String, String> environment(long offsetMillis) {
        requireLibfaketime("clock-skew");
        // The monotonic clock moves by the same constant, which changes no interval the JVM
        // measures with it. (FAKETIME_DONT_FAKE_MONOTONIC=1 would leave it alone, but then
        // FAKETIME_FORCE_MONOTONIC_FIX=0 is needed too, see OffsetFile.)
        return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME", format(offsetMillis));
    }

    /** An offset as libfaketime's files and {@code FAKETIME} take it, and the shim parses it: {@code +5.000s}. */
    static String format(long offsetMillis) {
        return (offsetMillis >= 0 ? "+" : "-") + Math.abs(offsetMillis) / 1000 + "."
                + String.format(Locale.ROOT, "%03d", Math.abs(offsetMillis) % 1000) + "s";
    }

    private static void requireLibfaketime(String fault) {
        if (!Files.isReadable(LIBRARY)) {
            throw new IllegalStateException(fault + " fault: " + LIBRARY + " is missing; install it with"
                    + " 'apt-get install faketime' (or leave " + fault + " out of --faults)");
        }
    }

    /**
     * The clock shim ({@code clockjump.c}, a resource of this module), compiled once per JVM with
     * the machine's {@code cc}.
     */
    static synchronized Path shim() {
        if (shim == null) {
            shim = build("clockjump.c", "libclockjump.so", "Redis", "-shared", "-fPIC");
        }
        return shim;
    }

    /**
     * The clock tracer ({@code clocktrace.c}, a resource of this module), compiled once per JVM
     * with the machine's {@code cc}.
     */
    static synchronized Path tracer() {
        if (tracer == null) {
            tracer = build("clocktrace.c", "clocktrace", "etcd");
        }
        return tracer;
    }

    /**
     * Compiles the C resource {@code source} into {@code output} in a temp directory of its own
     * (readable and executable by every user: a PostgreSQL server runs as {@code postgres}).
     * {@code backend} names who needs it, for the error a missing {@code cc} gives.
     */
    private static final String OFFSET_HEADER = "offset.h";

    private static Path build(String source, String output, String backend, String... flags) {
        try {
            Path dir = Files.createTempDirectory("mortise-clockjump-");
            Path file = dir.resolve(source);
            try (InputStream in = FakeClock.class.getResourceAsStream(source)) {
                if (in == null) {
                    throw new IllegalStateException(source + " is missing from the lock-chaos jar");
                }
                Files.copy(in, file);
            }
            try (InputStream in = FakeClock.class.getResourceAsStream(OFFSET_HEADER)) {
                if (in == null) {
                    throw new IllegalStateException(OFFSET_HEADER + " is missing from the lock-chaos jar");
                }
                Files.copy(in, dir.resolve(OFFSET_HEADER)); // the offset parsing both sources include
            }
            Path binary = dir.resolve(output);
            List<String> command = new ArrayList<>(List.of("cc"));
            command.addAll(List.of(flags));
            command.addAll(List.of("-O2", "-o", binary.toString(), file.toString()));
            Process cc;
            try {
                cc = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IllegalStateException("server-clock-jump on " + backend + " needs a C compiler ('cc') to"
                        + " build " + source + "; install gcc, or leave server-clock-jump out of --faults: "
                        + e.getMessage(), e);
            }
            String out = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) {
                throw new IllegalStateException("cc could not build " + file + " (server-clock-jump on " + backend
                        + "):\n" + out);
            }
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
            return binary;
        } catch (IOException e) {
            throw new UncheckedIOException("could not build " + source + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building " + source, e);
        }
    }

    /**
     * A wall-clock offset that running processes re-read: {@link #set} rewrites it atomically
     * (a new file renamed over the old, so a reader never sees half a line). Readable by every
     * user (a PostgreSQL server runs as {@code postgres}). Thread-safe.
     */
    public static final class OffsetFile implements AutoCloseable {

        private final Path dir;
        private final Path file;
        private volatile long offsetMillis;

        private OffsetFile(Path dir) {
            this.dir = dir;
            this.file = dir.resolve("offset.rc");
        }

        /** A new offset file at 0. */
        public static OffsetFile create() {
            try {
                Path dir = Files.createTempDirectory("mortise-clock-");
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
                OffsetFile offset = new OffsetFile(dir);
                offset.set(0);
                return offset;
            } catch (IOException e) {
                throw new UncheckedIOException("could not create a clock offset file: " + e.getMessage(), e);
            }
        }

        /** Moves the wall clock of every process reading this file to {@code offsetMillis} off the machine's. */
        public synchronized void set(long offsetMillis) {
            try {
                Path next = Files.createTempFile(dir, "offset", ".tmp");
                Files.writeString(next, format(offsetMillis) + "\n", StandardCharsets.US_ASCII);
                Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-r--r--"));
                Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                this.offsetMillis = offsetMillis;
            } catch (IOException e) {
                throw new UncheckedIOException("could not write the clock offset " + file + ": " + e.getMessage(), e);
            }
        }

        /** The offset last set, in millis. */
        public long offsetMillis() {
            return offsetMillis;
        }

        public Path path() {
            return file;
        }

        /**
         * libfaketime reading this file (JVMs, PostgreSQL). The monotonic clock is not faked
         * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}), which with this libfaketime makes a JVM spin on
         * its timed waits (one and a half cores per idle JVM) unless its monotonic fix is off
         * ({@code FAKETIME_FORCE_MONOTONIC_FIX=0}); the file is re-read at most every second.
         */
        public Map<String, String> libfaketimeEnvironment() {
            requireLibfaketime("clock-jump");
            return Map.of("LD_PRELOAD", LIBRARY.toString(), "FAKETIME_TIMESTAMP_FILE", file.toString(),
                    "FAKETIME_CACHE_DURATION", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                    "FAKETIME_FORCE_MONOTONIC_FIX", "0");
        }

        /** The clock shim reading this file (re-read at most every 10 ms): for redis-server. */
        public Map<String, String> shimEnvironment() {
            return Map.of("LD_PRELOAD", shim().toString(), "CLOCKJUMP_FILE", file.toString());
        }

        /**
         * The command prefix that runs a program under the clock tracer reading this file
         * (answers from the file re-read at most every 100 ms): for etcd, a Go binary that reads
         * the clock without libc, out of reach of any preload library. Put the program's
         * absolute path and arguments after it.
         */
        public List<String> tracerCommand() {
            return List.of(tracer().toString(), file.toString());
        }

        @Override
        public void close() {
            try {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                // A temp file left behind is harmless.
            }
        }
    }
}
