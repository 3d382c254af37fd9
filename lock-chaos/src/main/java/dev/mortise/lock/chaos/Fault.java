package dev.mortise.lock.chaos;

import java.util.List;
import java.util.Locale;

/**
 * A fault the controller injects on a schedule, and whom it strikes: a holder inside its
 * critical section (between its ledger read and its write), a worker blocked waiting for a
 * lock, or the lock server itself.
 */
public enum Fault {
    /** No fault: the baseline. */
    NONE(Target.NONE),
    /** SIGSTOP of a holder for longer than twice the lease, then SIGCONT: a stop-the-world GC pause. */
    PAUSE(Target.HOLDER),
    /** SIGSTOP of a worker blocked in acquire, longer than its session/lease: its session dies while it waits. */
    WAITER_PAUSE(Target.WAITER),
    /** kill -9 of a holder: it dies holding the lock; a fresh worker replaces it. */
    KILL(Target.HOLDER),
    /**
     * The holder's network cut (its proxy drops every connection and refuses new ones, both
     * directions) for longer than twice the lease, then healed.
     */
    NET_CUT(Target.HOLDER),
    /** As {@link #NET_CUT} for a worker blocked waiting: its session dies while it waits. */
    WAITER_CUT(Target.WAITER),
    /** The holder's proxy delays every chunk, both directions, by three quarters of the lease for a while. */
    NET_DELAY(Target.HOLDER),
    /**
     * Worker JVMs with skewed wall clocks (libfaketime: +5 s, -5 s, 0 in turn) while holders are
     * paused as in {@link #PAUSE}: expiry must not depend on the clients' clocks.
     */
    CLOCK_SKEW(Target.HOLDER),
    /**
     * kill -9 of the lock server while a worker holds a lock, one second down, restart on the
     * same port and data - with the server durable: Redis with AOF {@code appendfsync always},
     * PostgreSQL with fsync and synchronous commit on, etcd and ZooKeeper as they are.
     */
    SERVER_KILL(Target.SERVER),
    /**
     * As {@link #SERVER_KILL} with the server not durable: Redis without persistence,
     * PostgreSQL with fsync and synchronous commit off. Shows what fencing is worth then.
     */
    SERVER_KILL_VOLATILE(Target.SERVER),
    /** kill -9 of the leader of a 3-member cluster (etcd) or ensemble (ZooKeeper), restarted a second later. */
    LEADER_KILL(Target.SERVER);

    /** Whom a fault strikes. */
    public enum Target { NONE, HOLDER, WAITER, SERVER }

    private final Target target;

    Fault(Target target) {
        this.target = target;
    }

    public Target target() {
        return target;
    }

    /** Faults that take the victim's lease away for longer than the lease: its {@code onLost} must fire. */
    public boolean holderLosesLease() {
        return this == PAUSE || this == NET_CUT || this == CLOCK_SKEW;
    }

    /** Faults after which another worker takes over because the holder died or vanished: takeover ≤ lease + 1 s. */
    public boolean boundedTakeover() {
        return this == PAUSE || this == KILL || this == NET_CUT || this == CLOCK_SKEW;
    }

    /** Faults whose victim connects through a {@link ChaosProxy}. */
    public boolean throughProxy() {
        return this == NET_CUT || this == WAITER_CUT || this == NET_DELAY;
    }

    /** Whether the fault makes sense for a backend (a leader needs a cluster; the clock skew is JDBC's). */
    public boolean appliesTo(String backend) {
        return switch (this) {
            case LEADER_KILL -> backend.equals("etcd") || backend.equals("zookeeper");
            case SERVER_KILL_VOLATILE -> backend.equals("redis") || backend.equals("jdbc");
            case CLOCK_SKEW -> backend.equals("jdbc");
            default -> true;
        };
    }

    /** Every fault but {@link #NONE}, in the order the report lists them. */
    public static List<Fault> all() {
        return List.of(PAUSE, WAITER_PAUSE, KILL, NET_CUT, WAITER_CUT, NET_DELAY, CLOCK_SKEW, SERVER_KILL,
                SERVER_KILL_VOLATILE, LEADER_KILL);
    }

    /** The lower-case name used on the command line and in the report ({@code server-kill}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The fault for a label ({@code pause}, {@code net-cut}, {@code server-kill}, {@code none}...). */
    public static Fault of(String label) {
        try {
            return valueOf(label.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown fault '" + label + "', expected one of none, "
                    + all().stream().map(Fault::label).toList(), e);
        }
    }
}
