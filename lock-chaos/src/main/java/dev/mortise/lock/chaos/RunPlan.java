package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Which backend × workload × fault rows a table run ({@link TableRun}) runs, and for how long.
 * Without {@code --faults} and {@code --workloads} it is the full plan ({@link #full}); with
 * either, every given backend × workload × fault that applies ({@link #explicit}).
 */
final class RunPlan {

    /** The seconds of the full plan's added rows unless {@code --short-seconds} says otherwise. */
    static final int SHORT_SECONDS = 15;

    /**
     * The faults a Redis variant runs with the basic workload in the full plan: the holder's and
     * the waiter's pauses and cuts, a server kill and a silent partition - where the driver (its
     * connection handling, its renewals) and fair mode (its server-side queue, the hand-off on
     * release) change what happens. The others strike the server or the clocks the same way.
     */
    static final List<Fault> VARIANT_FAULTS = List.of(Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT, Fault.WAITER_CUT,
            Fault.SERVER_KILL, Fault.SILENT_PARTITION);

    /** The workloads the full plan runs on every backend label, the Redis variants included, as added rows. */
    static final List<Workload> ADDED_WORKLOADS = List.of(Workload.SHARED, Workload.PERMITS);

    /** The workloads the full plan runs on the plain backends for {@code --seconds}. */
    static final List<Workload> MAIN_WORKLOADS = List.of(Workload.BASIC, Workload.MIXED, Workload.LEADER);

    /**
     * One run of the table.
     *
     * @param backend  the backend label ({@link Backends}), a Redis variant included
     * @param workload what the workers do
     * @param fault    the fault injected
     * @param seconds  how long the workers loop
     */
    record Row(String backend, Workload workload, Fault fault, int seconds) {

        /** {@code redis/fair x pause x shared}, as the progress lines name it. */
        String label() {
            return backend + " x " + fault.label() + " x " + workload.label();
        }
    }

    private RunPlan() {
    }

    /** The rows {@code options} ask for: {@link #full} or {@link #explicit}. */
    static List<Row> of(ChaosOptions options) {
        if (options.faults() == null && options.workloads() == null) {
            List<String> backends = options.backends().isEmpty() ? defaultBackends() : options.backends();
            return full(backends, options.seconds(), options.shortSeconds());
        }
        List<String> backends = options.backends().isEmpty() ? Backends.SUPPORTED : options.backends();
        return explicit(backends, options.workloads() != null ? options.workloads() : MAIN_WORKLOADS,
                options.faults(), options.seconds());
    }

    /** The full plan's backends: each of {@link Backends#SUPPORTED}, Redis followed by its variants. */
    static List<String> defaultBackends() {
        List<String> labels = new ArrayList<>();
        for (String backend : Backends.SUPPORTED) {
            labels.add(backend);
            if (backend.equals("redis")) {
                labels.addAll(Backends.REDIS_VARIANTS);
            }
        }
        return labels;
    }

    /**
     * The full plan, per backend label in turn: a plain backend runs the basic workload under every
     * fault that applies, the mixed and the leader workload under theirs ({@link Workload#defaultFaults}),
     * for {@code seconds}; a Redis variant runs the basic workload under {@link #VARIANT_FAULTS}. Then
     * every label runs the shared and permits workloads under theirs (none, pause, waiter-pause,
     * net-cut). The variants' rows and the shared and permits rows are the added rows: they run for
     * {@code shortSeconds}, or {@code seconds} where that is shorter, so a quick trial stays quick.
     */
    static List<Row> full(List<String> backends, int seconds, int shortSeconds) {
        int added = Math.min(seconds, shortSeconds);
        List<Row> rows = new ArrayList<>();
        for (String backend : backends) {
            if (Backends.isVariant(backend)) {
                rows.addAll(rows(backend, Workload.BASIC, VARIANT_FAULTS, added));
            } else {
                for (Workload workload : MAIN_WORKLOADS) {
                    rows.addAll(rows(backend, workload, workload.defaultFaults(), seconds));
                }
            }
            for (Workload workload : ADDED_WORKLOADS) {
                rows.addAll(rows(backend, workload, workload.defaultFaults(), added));
            }
        }
        return rows;
    }

    /**
     * Every backend × workload × fault (those that apply; with {@code faults} null each workload's
     * {@link Workload#defaultFaults}), each for {@code seconds}.
     */
    static List<Row> explicit(List<String> backends, List<Workload> workloads, List<Fault> faults, int seconds) {
        List<Row> rows = new ArrayList<>();
        for (String backend : backends) {
            for (Workload workload : workloads) {
                rows.addAll(rows(backend, workload, faults != null ? faults : workload.defaultFaults(), seconds));
            }
        }
        return rows;
    }

    /** The rows of one backend label × workload: the faults that apply to its server. */
    private static List<Row> rows(String backend, Workload workload, List<Fault> faults, int seconds) {
        return faults.stream().filter(f -> f.appliesTo(Backends.base(backend)))
                .map(f -> new Row(backend, workload, f, seconds)).toList();
    }
}
