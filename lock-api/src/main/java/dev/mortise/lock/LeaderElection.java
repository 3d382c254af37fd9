package dev.mortise.lock;

import java.util.OptionalLong;

/**
 * One candidate's part in electing a leader of a group: it contends for the group's leadership
 * lock, leads while it holds a valid lease on it, and contends again after a loss, until
 * {@link #close() closed}. Start one with {@link LockClient#leadership(String)}:
 *
 * <pre>{@code
 * LeaderElection election = locks.leadership("billing")
 *         .listener(new LeadershipListener() {
 *             public void onElected(long epoch) { log.info("leading billing, epoch {}", epoch); }
 *             public void onRevoked(LeadershipRevoked revoked) { log.info("no longer leading: {}", revoked); }
 *         })
 *         .start();
 * ...
 * OptionalLong epoch = election.epoch();          // empty unless leading now
 * if (epoch.isPresent()) storage.write(invoice, epoch.getAsLong());
 * ...
 * election.close();                               // releases, and fires onRevoked if leading
 * }</pre>
 *
 * <p><b>The contract</b> is that of the lock behind it (DESIGN.md "Semantics"), on every backend:
 * <ul>
 *   <li>Leadership is a hold of the group's key ({@link #key()}, {@code "leader:" + group} unless
 *       set) with the client's default lease, renewed by the watchdog. {@link #isLeader()} is true
 *       only while that lease {@link LockLease#isValid() is valid}, so at any instant at most one
 *       candidate of a group, on any client, is leader.</li>
 *   <li>The {@link #epoch() epoch} is the hold's fencing token: strictly greater for each
 *       successive term of the group, whichever candidate leads. Pass it with every write the
 *       leader makes and have the storage refuse lower ones, as for any fencing token.</li>
 *   <li>A leader whose lease is lost (renewals failed until it ran out, the server dropped the
 *       hold, the session ended) stops being leader at the instant the lease turns invalid, is told
 *       through {@link LeadershipListener#onRevoked} with {@link LeadershipRevoked.Reason#LOST},
 *       and contends again.</li>
 *   <li>Callbacks run on a thread of this election's own ({@code mortise-leadership-<group>}),
 *       never on the lock client's watchdog, expiry or backend threads; one election's callbacks
 *       run one at a time, in order: elected, revoked, elected, revoked, ... A slow callback delays
 *       later callbacks of this election only, never the renewal of its lease nor its
 *       loss detection. A callback that throws is logged and ignored.</li>
 *   <li>The leadership lock is held by an owner id of this election's own (see
 *       {@link LockSpec#owner}), so locks the application takes on its own threads never nest in
 *       it, nor it in them.</li>
 * </ul>
 *
 * <p>Thread-safe. Backend failures while contending are logged and retried after
 * {@link LeaderElectionBuilder#retryPause the retry pause}; the election ends by itself only when
 * its {@link LockClient} is closed.
 */
public interface LeaderElection extends AutoCloseable {

    /** The group's name, as given to {@link LockClient#leadership(String)}. */
    String group();

    /** The lock key of the group's leadership ({@code "leader:" + group} unless set). */
    String key();

    /**
     * Whether this candidate leads now: it holds the leadership lock and its lease is valid
     * ({@link LockLease#isValid()}). Turns false the instant the lease stops being valid, before
     * {@link LeadershipListener#onRevoked} runs.
     */
    boolean isLeader();

    /**
     * The epoch of the current term: the fencing token of the leadership lease, strictly greater
     * than that of every earlier term of the group. Empty unless {@link #isLeader()}.
     */
    OptionalLong epoch();

    /**
     * Steps down if leading: from the moment it returns, this candidate is not leader; the lease is
     * released on the election's thread shortly after, {@link LeadershipListener#onRevoked} is told
     * with {@link LeadershipRevoked.Reason#STEPPED_DOWN}, and the candidate contends again after the
     * {@link LeaderElectionBuilder#stepDownPause step-down pause}, so another candidate can win.
     * Returns at once; may be called from a callback.
     *
     * @return true if this candidate was leader
     */
    boolean stepDown();

    /** Whether the election is contending or leading: started and neither closed nor ended by its client closing. */
    boolean isRunning();

    /**
     * Stops contending: releases the leadership lock if held (firing
     * {@link LeadershipListener#onRevoked} with {@link LeadershipRevoked.Reason#CLOSED}) and stops the
     * election's threads. Returns once the lock is released and the last callback has run, unless
     * called from a callback of this election (then it does not wait for the callbacks). Idempotent.
     */
    @Override
    void close();
}
