package dev.mortise.lock.redis.internal;

import java.time.Duration;

/**
 * What every command family of one Redis deployment shares: the {@link ScriptRunner}, the key
 * prefix, the deployment's shape (Cluster or not) and the backend's settings (replicas to wait for,
 * fair mode, how tokens are numbered), and the timings derived from them. Immutable apart from the
 * remembered lease texts ({@link MillisText}); thread-safe.
 */
public final class Deployment {

    private final ScriptRunner runner;
    private final String prefix;
    private final boolean cluster;
    private final int replicas;
    private final Duration replicaTimeout;
    private final boolean fair;
    /** ARGV flag of the granting scripts: "1" numbers grants by the server clock, "0" by the counter. */
    private final String clock;
    private final Duration waiterTtl;
    /** The lease of the requests, as sent: the same lease nearly every time. */
    private final MillisText leaseText = new MillisText();
    /** The writer-waiting marker's TTL, as sent: the waiter TTL every time. */
    private final MillisText markText = new MillisText();

    /**
     * @param cluster        whether keys of different slots must go in different script calls
     * @param replicas       replicas that must acknowledge a grant or renewal (0: none)
     * @param replicaTimeout how long {@code WAIT} waits for them
     * @param fair           whether waiters queue on the server and release hands over ({@link FairCommands})
     * @param serverClock    whether a new holder's token is {@code max(counter + 1, server TIME in µs)}
     *                       ({@code next_token} in {@code prelude.lua}) rather than {@code counter + 1}
     */
    Deployment(ScriptRunner runner, String prefix, boolean cluster, int replicas, Duration replicaTimeout,
               boolean fair, boolean serverClock) {
        this.runner = runner;
        this.prefix = prefix;
        this.cluster = cluster;
        this.replicas = replicas;
        this.replicaTimeout = replicaTimeout;
        this.fair = fair;
        this.clock = serverClock ? "1" : "0";
        // A queue entry outlives a few missed heartbeats and one slow round trip, no more.
        this.waiterTtl = WaitingAcquisition.HEARTBEAT.multipliedBy(3).plus(runner.timeout());
    }

    public ScriptRunner runner() {
        return runner;
    }

    public RedisKeys keys(String key) {
        return RedisKeys.of(prefix, key);
    }

    /** The name of the wait record kept under {@code holderId}: {@link RedisKeys#waitRecord}. */
    String waitRecord(String holderId) {
        return RedisKeys.waitRecord(prefix, holderId);
    }

    /** Whether keys of different slots must go in different script calls. */
    boolean cluster() {
        return cluster;
    }

    /** Replicas that must acknowledge a grant or renewal (0: none). */
    int replicas() {
        return replicas;
    }

    Duration replicaTimeout() {
        return replicaTimeout;
    }

    public boolean fair() {
        return fair;
    }

    /** Whether grants are numbered {@code max(counter + 1, server TIME in µs)} rather than {@code counter + 1}. */
    public boolean serverClock() {
        return clock.equals("1");
    }

    /** The clock flag as the granting scripts take it ("1" or "0"). */
    String clock() {
        return clock;
    }

    /** Fair mode: how long a waiter's queue entry lives unless refreshed (also a writer marker's slack). */
    public Duration waiterTtl() {
        return waiterTtl;
    }

    /**
     * Whether an exclusive release hands the lock straight to a waiting writer ({@code release-handing.lua}):
     * in the default mode without {@code waitForReplicas} (a hand-off has no {@code WAIT} of its own, so
     * there every waiter asks again and waits for its replicas).
     */
    boolean handsOver() {
        return !fair && replicas == 0;
    }

    /** Whether grants count only once {@code WAIT} says enough replicas have them ({@code waitForReplicas}). */
    boolean waitsForReplicas() {
        return replicas > 0;
    }

    /**
     * How long after a clean-up starts an attempt it cleans up after can still matter: the
     * attempt's lease plus twice the operation timeout (the client's own wait and one resend of
     * the attempt fit in it). The cancelled marker lives this long, and a clean-up the server has
     * not confirmed is retried until then; an attempt that ran on the server within the client's
     * timeouts has expired by itself by then.
     */
    public Duration horizon(Duration lease) {
        return lease.plus(runner.timeout().multipliedBy(2));
    }

    /** {@code lease} as the scripts take it, remembered (nearly every request carries the same lease). */
    String leaseText(Duration lease) {
        return leaseText.of(lease);
    }

    /** A writer marker's TTL as the scripts take it, remembered. */
    String markText(Duration markTtl) {
        return markText.of(markTtl);
    }
}
