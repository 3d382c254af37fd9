package dev.mortise.lock.zookeeper.internal;

/**
 * What a grant needs to renew or release its hold: the lock node, its czxid (the fencing
 * token) and the session that owns it (its ephemeral owner). The hold's mode is part of
 * the node's name ({@link #shared()}).
 *
 * @param path      the full path of the ephemeral sequential node
 * @param czxid     the zxid of the transaction that created it
 * @param sessionId the ZooKeeper session the node lives and dies with
 * @param ctime     when the server created it, in the leader's milliseconds since the epoch
 *                  (0 if unknown): the only clock the ensemble shares with its clients,
 *                  which {@link LingerMarkers} measure lingering holds against
 */
public record NodeRef(String path, long czxid, long sessionId, long ctime) {

    /** A node whose creation time is not known. */
    public NodeRef(String path, long czxid, long sessionId) {
        this(path, czxid, sessionId, 0);
    }

    public String name() {
        return LockPaths.name(path);
    }

    /** Whether this is a shared (read) hold; the mode is part of the node's name. */
    public boolean shared() {
        return LockPaths.isShared(name());
    }
}
