package dev.mortise.lock.zookeeper.internal;

/**
 * What a grant needs to renew or release its hold: the lock node, its czxid (the fencing
 * token) and the session that owns it (its ephemeral owner).
 *
 * @param path      the full path of the ephemeral sequential node
 * @param czxid     the zxid of the transaction that created it
 * @param sessionId the ZooKeeper session the node lives and dies with
 */
public record NodeRef(String path, long czxid, long sessionId) {

    public String name() {
        return LockPaths.name(path);
    }
}
