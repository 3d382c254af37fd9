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
     * with the faults where it changes what is tested ({@link #defaultFaults}).
     */
    MIXED,
    /**
     * Leader election (issue 18): every worker JVM runs one candidate of one group
     * ({@code LockClient.leadership}) on the run's one key; while it leads it loops read, critical
     * section, write on the ledger, every read and write fenced by its epoch (the leadership
     * lease's fencing token). A leader steps down after {@value LeaderCycles#LEADER_WRITES_PER_TERM}
     * writes, so elections happen without faults too. The holder faults strike the leader (the
     * only worker ever inside a critical section). Events: ACQUIRED when a worker sees itself
     * elected (token = epoch), LOST / RELEASED when its term ends (lost / stepped down or
     * closed), WAIT when it starts contending.
     */
    LEADER,
    /**
     * Read-write locks: each cycle takes one of the run's keys, shared ({@code LockSpec.shared()})
     * with probability {@value ChaosWorker#SHARED_PERCENT} %, else exclusive. A writer runs the basic
     * cycle (fenced read, critical section, fenced write + 1). A reader logs MODE_SHARED after its
     * grant, does a fenced READ (raising the key's fence to its token, so a writer granted before
     * it can no longer write), the sampled critical section, a second fenced read (READ_AGAIN) and
     * releases; it never writes. Readers beside readers are fine; a writer beside any holder is a
     * violation ({@link ModeRules}).
     */
    SHARED,
    /**
     * A semaphore ({@code LockClient.semaphore(key, }{@value ChaosWorker#PERMITS}{@code )}): each
     * cycle takes one permit, logs ACQUIRED and MODE_PERMIT (value = the permit count) on the lock
     * key the permit is held on ({@code name#permits} natively, {@code name#permit-i} on a slot),
     * INSIDE, the sampled critical section, OUTSIDE, and releases. No ledger writes: a permit
     * holder shares its resource with others by design, so no one token fences it. A violation is
     * more than the permit count of holders valid at once ({@link ModeRules}).
     */
    PERMITS,
    /**
     * Deadlocks (issue 31): each cycle takes two of the run's {@value ChaosRun#MIXED_KEYS} keys in a random
     * order, so workers do deadlock, with the client's default deadlock detection; a wait ended as a
     * cycle's victim logs the cycle it names ({@link DeadlockRules}) and the cycle goes on with the
     * next keys. Besides the exclusive rules, the checker finds no false victim: every member of a
     * named cycle was waiting and every holder held, by the run's own history.
     */
    DEADLOCK;

    /**
     * The faults a full run pairs with this workload: every fault with {@link #BASIC}; with
     * {@link #MIXED} no fault, a holder pause, a waiter pause and a holder's network cut - the
     * faults whose outcome depends on leases, extends and listeners - so the full run grows by
     * 16 runs (about 10 minutes at 25 s each) rather than doubling; with {@link #LEADER} no
     * fault, a pause, a kill and a network cut of the leader, and a server (etcd, ZooKeeper: the
     * cluster leader's) kill - the faults that force a failover or test the fencing by epoch; with
     * {@link #SHARED} and {@link #PERMITS} the mixed workload's four; with {@link #DEADLOCK} those and a waiter's cut.
     */
    public List<Fault> defaultFaults() {
        return switch (this) {
            case BASIC -> Fault.all();
            case MIXED -> List.of(Fault.NONE, Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT);
            case LEADER -> List.of(Fault.NONE, Fault.PAUSE, Fault.KILL, Fault.NET_CUT, Fault.SERVER_KILL,
                    Fault.LEADER_KILL);
            case SHARED, PERMITS -> List.of(Fault.NONE, Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT);
            // A paused or cut waiter leaves a stale wait record: it must produce no victim.
            case DEADLOCK -> List.of(Fault.NONE, Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT, Fault.WAITER_CUT);
        };
    }

    /** Lower-case name for the command line and the report. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The workload for a label ({@code basic}, {@code mixed}, {@code leader}, {@code shared}, {@code permits}, {@code deadlock}). */
    public static Workload of(String label) {
        try {
            return valueOf(label.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown workload '" + label + "', expected basic, mixed, leader, shared, permits or deadlock", e);
        }
    }
}
