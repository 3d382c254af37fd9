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
    LEADER_KILL(Target.SERVER),
    /**
     * A silent partition of the holder: its proxy ({@link ChaosProxy#silence()}) keeps every
     * connection open and forwards no byte either way, and accepts new connections without
     * forwarding them, for twice the lease + 1 s; then it heals the way TCP recovers from a
     * partition shorter than its retransmission timeout: the held bytes are delivered late, in
     * order, and the connections carry on. Strikes a holder inside its critical section. Rules:
     * its lease ends by time and it is told ({@code onLost}, or its release fails), another
     * waiter takes over within the lease + 1 s, the cut worker acquires again after the heal,
     * nothing is orphaned, no stale write is accepted.
     */
    SILENT_PARTITION(Target.HOLDER),
    /**
     * kill -9 of a holder between its release request and the reply: from its read on, its
     * proxy holds the server's replies ({@link ChaosProxy#holdReplies()}); once the worker says
     * it is releasing and the proxy has forwarded a request after that, the worker is killed and
     * the held reply dropped with its connection. Rule: no orphan beyond one lease - another
     * waiter holds the key within the lease + 1 s, and nothing is left at the end. (Over JDBC,
     * where each statement may open a connection, the reply held can be the new connection's
     * handshake, so the release may never have been sent: the same rule covers both.)
     */
    RELEASE_KILL(Target.HOLDER),
    /**
     * SIGSTOP of a holder during a renewal round trip: from its read on, its proxy holds the
     * server's replies; the first request the proxy forwards before the worker starts to
     * release (a watchdog renewal, an etcd keep-alive, a ZooKeeper ping) is the victim's
     * renewal, and the worker is stopped with its reply in flight. The reply is then delivered
     * into the stopped process, which stays stopped for twice the lease + 1 s and is continued.
     * The workers' critical section is one lease long in this run ({@link ChaosRun#csMs}), so
     * holds live through renewals.
     * Rules: as {@link #PAUSE} (it is told of the loss, takeover within the lease + 1 s), and the
     * late "renewed" reply must not revive the lease (validity counts from the request's start).
     */
    RENEW_STOP(Target.HOLDER),
    /**
     * The lock server's wall clock jumps ({@link FakeClock}, an offset file re-read at once)
     * while a worker holds a lock: one round forward by {@link ChaosRun#SERVER_CLOCK_JUMP_MS} and
     * back, the next backward and forward again, each position held half a pause. The monotonic
     * clock is left alone, as an NTP or operator step leaves it. Redis (an LD_PRELOAD shim:
     * libfaketime cannot start a jemalloc redis-server), PostgreSQL (libfaketime), ZooKeeper
     * (libfaketime on a server JVM of its own, {@link ZooKeeperJvm}) and a one-member etcd (a Go
     * binary, which reads the clock through the vDSO without libc: it runs under a ptrace tracer,
     * {@code clocktrace.c}, that hides the vDSO so the clock is read by system calls, and answers
     * the wall-clock ones). A forward jump expires holds early on Redis and PostgreSQL (Redis key
     * expiry and the JDBC backend's expiry are the server's wall clock): another worker is
     * granted the key while the holder's lease is still valid by its own clock - validity
     * overlaps, reported as UNSAFE - and fencing must still refuse every stale write. ZooKeeper
     * expires sessions by its monotonic clock, and etcd's lessor times leases on Go's monotonic
     * clock reading, so there nothing is expected to change.
     */
    SERVER_CLOCK_JUMP(Target.SERVER),
    /**
     * The workers' wall clocks jump by minutes while a worker holds a lock: {@code +3 min}, then
     * {@code -3 min}, then back, each position held half a pause (libfaketime with an offset file
     * and {@code FAKETIME_DONT_FAKE_MONOTONIC=1}: {@code System.currentTimeMillis()} jumps,
     * {@code System.nanoTime()} does not). Every worker of the run shares the clock. Rules: no
     * lease is lost (the core times leases on the monotonic clock), no validity overlap, no
     * false grant, no stale write accepted.
     */
    CLIENT_CLOCK_JUMP(Target.HOLDER),
    /**
     * Redis only: a master, one replica and one Sentinel ({@link RedisFailover}, no
     * persistence). While a worker holds a lock the replica is paused (SIGSTOP) for a second -
     * it falls behind while the master goes on granting and counting tokens - then the master is
     * killed (-9), the replica continued and promoted by Sentinel, and the old master restarted
     * as the new master's replica. The workers reach the master through the Sentinel, without
     * {@code WAIT}: grants the replica never received are lost with the master, so a key can be
     * granted again while its holder's lease is still valid (validity overlaps, UNSAFE, shown);
     * server-clock tokens must still never repeat (0 reused) and fencing must refuse every stale
     * write. The report also gives what a grant cost (acquire p50 / p99).
     */
    FAILOVER(Target.SERVER),
    /**
     * As {@link #FAILOVER} with the workers' backend built with {@code waitForReplicas(1, 500 ms)}:
     * a grant or renewal counts only once the replica acknowledged it. While the replica is
     * paused no grant is acknowledged (each is withdrawn and the acquire fails), so every hold
     * the promoted replica must know about, it knows: no validity overlap is expected. The
     * acquire figures show what {@code WAIT} costs.
     */
    FAILOVER_WAIT(Target.SERVER);

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
        return this == PAUSE || this == NET_CUT || this == CLOCK_SKEW || this == SILENT_PARTITION
                || this == RENEW_STOP;
    }

    /** Faults that kill the victim: a fresh worker replaces it. */
    public boolean killsVictim() {
        return this == KILL || this == RELEASE_KILL;
    }

    /** Faults that move a wall clock: the victim is struck holding a lock, the clock is what changes. */
    public boolean jumpsClock() {
        return this == SERVER_CLOCK_JUMP || this == CLIENT_CLOCK_JUMP;
    }

    /** Faults after which another worker takes over because the holder died or vanished: takeover ≤ lease + 1 s. */
    public boolean boundedTakeover() {
        return this == PAUSE || this == KILL || this == NET_CUT || this == CLOCK_SKEW || this == SILENT_PARTITION
                || this == RELEASE_KILL || this == RENEW_STOP;
    }

    /** Faults whose victim connects through a {@link ChaosProxy}. */
    public boolean throughProxy() {
        return this == NET_CUT || this == WAITER_CUT || this == NET_DELAY || this == SILENT_PARTITION
                || this == RELEASE_KILL || this == RENEW_STOP;
    }

    /**
     * Whether the fault makes sense for a backend (a leader needs a cluster; the clock skew is JDBC's;
     * a Sentinel failover is Redis's).
     */
    public boolean appliesTo(String backend) {
        return switch (this) {
            case LEADER_KILL -> backend.equals("etcd") || backend.equals("zookeeper");
            case SERVER_KILL_VOLATILE -> backend.equals("redis") || backend.equals("jdbc");
            case CLOCK_SKEW -> backend.equals("jdbc");
            case FAILOVER, FAILOVER_WAIT -> backend.equals("redis");
            default -> true;
        };
    }

    /** Every fault but {@link #NONE}, in the order the report lists them. */
    public static List<Fault> all() {
        return List.of(PAUSE, WAITER_PAUSE, KILL, NET_CUT, WAITER_CUT, NET_DELAY, CLOCK_SKEW, SERVER_KILL,
                SERVER_KILL_VOLATILE, LEADER_KILL, SILENT_PARTITION, RELEASE_KILL, RENEW_STOP, SERVER_CLOCK_JUMP,
                CLIENT_CLOCK_JUMP, FAILOVER, FAILOVER_WAIT);
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
