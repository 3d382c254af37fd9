package dev.mortise.lock.redis.internal;

import java.time.Duration;

/**
 * The lock operations on one Redis deployment, as script calls, by family: {@link #attempts()}
 * (one acquire of any mode, from request to answer), {@link #exclusive()}, {@link #shared()} (shares
 * and permits), {@link #fair()} (the server-side queue), {@link #batch()} (all or nothing),
 * {@link #holds()} (renewal, release, and the clean-up of an attempt of unknown fate),
 * {@link #inspection()} (reads and pings) and {@link #waitRecords()} (deadlock detection's records);
 * and the release channels its waiters listen on. When replicas are required, each write is followed
 * by {@code WAIT} on the same connection. Thread-safe.
 */
public final class LockCommands {

    private final Deployment deployment;
    private final ExclusiveCommands exclusive;
    private final SharedCommands shared;
    private final FairCommands fair;
    private final HoldCommands holds;
    private final Attempts attempts;
    private final BatchAcquire batch;
    private final Inspection inspection;
    private final ReleaseChannels channels;
    private final WaitRecordCommands waitRecords;

    /**
     * @param cluster        whether keys of different slots must go in different script calls
     * @param replicas       replicas that must acknowledge a grant or renewal (0: none)
     * @param replicaTimeout how long {@code WAIT} waits for them
     * @param fair           whether waiters queue on the server and release hands over ({@link FairCommands})
     * @param serverClock    whether a new holder's token is {@code max(counter + 1, server TIME in µs)}
     *                       ({@code next_token} in {@code prelude.lua}) rather than {@code counter + 1}
     */
    public LockCommands(ScriptRunner runner, String prefix, boolean cluster, int replicas, Duration replicaTimeout,
                        boolean fair, boolean serverClock) {
        this.deployment = new Deployment(runner, prefix, cluster, replicas, replicaTimeout, fair, serverClock);
        this.exclusive = new ExclusiveCommands(deployment);
        this.shared = new SharedCommands(deployment);
        this.fair = new FairCommands(deployment);
        this.holds = new HoldCommands(deployment, exclusive, shared, this.fair);
        this.attempts = new Attempts(deployment, exclusive, shared, this.fair, holds);
        this.batch = new BatchAcquire(deployment, holds);
        this.inspection = new Inspection(deployment);
        this.channels = new ReleaseChannels(runner);
        this.waitRecords = new WaitRecordCommands(deployment);
    }

    /** The deployment's runner, shape and settings. */
    public Deployment deployment() {
        return deployment;
    }

    public Attempts attempts() {
        return attempts;
    }

    public ExclusiveCommands exclusive() {
        return exclusive;
    }

    public SharedCommands shared() {
        return shared;
    }

    public FairCommands fair() {
        return fair;
    }

    public BatchAcquire batch() {
        return batch;
    }

    public HoldCommands holds() {
        return holds;
    }

    public Inspection inspection() {
        return inspection;
    }

    /** The wait records of deadlock detection kept on this deployment. */
    public WaitRecordCommands waitRecords() {
        return waitRecords;
    }

    /** The release-channel subscriptions of waiters on this deployment. */
    public ReleaseChannels channels() {
        return channels;
    }
}
