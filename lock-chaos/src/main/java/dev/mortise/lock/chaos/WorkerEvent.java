package dev.mortise.lock.chaos;

/**
 * One parsed line of a worker's stdout ({@code EV <epochMillis> <TYPE> <key> <token> <value>}).
 *
 * @param worker the worker id the controller gave the process
 * @param at     the worker's wall clock when it logged the step (same machine as the controller;
 *               a skewed worker's offset already taken out)
 */
public record WorkerEvent(String worker, long at, String type, String key, long token, long value) {

    /** The same event with its timestamp moved by {@code millis} (a skewed worker's clock, back to the machine's). */
    public WorkerEvent shifted(long millis) {
        return new WorkerEvent(worker, at + millis, type, key, token, value);
    }

    /** Parses an event line, or returns null for any other output. */
    public static WorkerEvent parse(String worker, String line) {
        if (!line.startsWith("EV ")) {
            return null;
        }
        String[] p = line.split(" ");
        if (p.length != 6) {
            return null;
        }
        try {
            return new WorkerEvent(worker, Long.parseLong(p[1]), p[2], p[3], Long.parseLong(p[4]), Long.parseLong(p[5]));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
