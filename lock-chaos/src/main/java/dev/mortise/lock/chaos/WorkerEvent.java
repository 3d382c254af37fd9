package dev.mortise.lock.chaos;

/**
 * One parsed line of a worker's stdout
 * ({@code EV <epochMillis> <TYPE> <key> <token> <value> <monoNanos> <wallMicros>}, the key
 * percent-encoded; see {@link ChaosWorker}).
 *
 * @param worker     the worker id the controller gave the process
 * @param at         the worker's wall clock in millis when it logged the step (same machine as the
 *                   controller; a skewed worker's offset already taken out)
 * @param mono       the host's monotonic clock ({@code System.nanoTime()}) at the step; only
 *                   comparable across workers that run without libfaketime, which fakes it too
 * @param wallMicros as {@code at}, in microseconds; for a worker whose wall clock jumps
 *                   ({@link Fault#CLIENT_CLOCK_JUMP}) what its own clock read
 */
public record WorkerEvent(String worker, long at, String type, String key, long token, long value, long mono,
                          long wallMicros) {

    /** An event without the precise times (tests, hand-made lists): both derived from {@code at}. */
    public WorkerEvent(String worker, long at, String type, String key, long token, long value) {
        this(worker, at, type, key, token, value, at * 1_000_000, at * 1000);
    }

    /** The same event with its wall-clock times moved by {@code millis} (a skewed worker's clock, back to the machine's). */
    public WorkerEvent shifted(long millis) {
        return new WorkerEvent(worker, at + millis, type, key, token, value, mono, wallMicros + millis * 1000);
    }

    /**
     * The same event with {@code at} rebuilt from its monotonic time plus {@code monoToWallNanos}
     * (a worker whose wall clock jumps, back onto the machine's); {@code wallMicros} keeps what
     * the worker's own wall clock read, so {@link #wallSkewMillis} shows the jump.
     */
    public WorkerEvent timedByMonotonic(long monoToWallNanos) {
        long wallNanos = mono + monoToWallNanos;
        return new WorkerEvent(worker, Math.floorDiv(wallNanos, 1_000_000L), type, key, token, value, mono,
                wallMicros);
    }

    /** How far the worker's wall clock was off the machine's at this event ({@code wallMicros} against {@code at}). */
    public long wallSkewMillis() {
        return wallMicros / 1000 - at;
    }

    /** Parses an event line, or returns null for any other output. */
    public static WorkerEvent parse(String worker, String line) {
        if (!line.startsWith("EV ")) {
            return null;
        }
        String[] p = line.split(" ");
        if (p.length != 6 && p.length != 8) {
            return null;
        }
        try {
            long at = Long.parseLong(p[1]);
            String key = ChaosKeys.decode(p[3]);
            if (p.length == 6) {
                return new WorkerEvent(worker, at, p[2], key, Long.parseLong(p[4]), Long.parseLong(p[5]));
            }
            return new WorkerEvent(worker, at, p[2], key, Long.parseLong(p[4]), Long.parseLong(p[5]),
                    Long.parseLong(p[6]), Long.parseLong(p[7]));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
