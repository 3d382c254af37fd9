package dev.mortise.lock.zookeeper.internal;

/**
 * The one thing that differs between the acquisitions that share the {@link QueueLoop}
 * (exclusive, shared, permits): what node is queued, and when it is admitted — as Curator's
 * {@code LockInternalsDriver} is to its {@code LockInternals}. One instance per acquisition
 * (it may keep what it learned from earlier looks); used by one wait, one step at a time (not
 * always on the same thread: the wait's driver orders the steps).
 */
interface Admission {

    /** The name the node is created with (ZooKeeper appends the sequence). */
    String nodeName();

    /** The node's data. */
    String data();

    /** How an interrupt message names what was waited for, e.g. {@code lock 'k'}. */
    String waitingFor(String key);

    /**
     * Sends, without waiting, the reads that {@link #admit} will likely need, right behind the
     * round's listing (pipelined: one round trip). Nothing by default.
     */
    default void prefetch(String parent, NodeRef node, String key) {
    }

    /**
     * Decides from one look at the queue (our node is in it, and our session is live).
     *
     * @throws dev.mortise.lock.LockException to refuse (the node is then deleted)
     */
    Verdict admit(QueueView view);

    /** Called once the node owns the key, before it is returned. Never throws. Nothing by default. */
    default void admitted(QueueView view) {
    }
}
