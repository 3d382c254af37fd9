package dev.mortise.lock.chaos;

import java.util.List;
import java.util.Locale;

/**
 * What the workers do in a run, the second dimension of the report next to the fault.
 */
public enum Workload {
    /**
     * One key per cycle, the client's default lease renewed by the watchdog, nothing else: the
     * workload every fault runs with.
     */
    BASIC,
    /**
     * Several keys held at once (two of the run's keys per cycle, acquired in one global order so
     * workers cannot deadlock), each with its own lease mode drawn per cycle: the default
     * renewed lease; an explicit lease (not renewed) shorter or longer than the default; or the
     * default lease with an {@code extend} to a longer or a shorter lease after the ledger read.
     * The client has a slow {@link dev.mortise.lock.LockListener} and every lease a slow
     * {@code onLost}: on a loss each blocks the notification thread for one lease. Run only
     * with the faults where it changes what is tested ({@link #appliesTo}).
     */
    MIXED;

    /**
     * The faults a full run pairs with this workload: every fault with {@link #BASIC}; with
     * {@link #MIXED} no fault, a holder pause, a waiter pause and a holder's network cut - the
     * faults whose outcome depends on leases, extends and listeners - so the full run grows by
     * 16 runs (about 10 minutes at 25 s each) rather than doubling.
     */
    public List<Fault> defaultFaults() {
        return this == BASIC ? Fault.all() : List.of(Fault.NONE, Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT);
    }

    /** Lower-case name for the command line and the report. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The workload for a label ({@code basic}, {@code mixed}). */
    public static Workload of(String label) {
        try {
            return valueOf(label.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown workload '" + label + "', expected basic or mixed", e);
        }
    }
}
