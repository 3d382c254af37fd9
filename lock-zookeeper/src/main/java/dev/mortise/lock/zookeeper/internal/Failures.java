package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;

/** Error messages that name the key, the backend and the fix. */
public final class Failures {

    static final String BACKEND = "zookeeper";

    private Failures() {
    }

    static LockBackendException timeout(String what, String key, Duration timeout, String ensemble) {
        return new LockBackendException("ZooKeeper did not " + what + forKey(key) + " within the operation timeout of "
                + timeout.toMillis() + " ms (backend 'zookeeper', ensemble " + ensemble + "). Check that a quorum of "
                + "the ensemble is up and reachable, or raise ZookeeperLockBackendBuilder.operationTimeout; nothing was "
                + "granted.", key, BACKEND, null);
    }

    static LockBackendException keeper(String what, String key, KeeperException e, String ensemble) {
        String fix = switch (e.code()) {
            case NOAUTH, AUTHFAILED -> "Give the client the credentials the ACLs need "
                    + "(ZookeeperLockBackendBuilder.authorization, or the CuratorFramework you supply)";
            case CONNECTIONLOSS, SESSIONEXPIRED, SESSIONMOVED -> "Check that a quorum of the ensemble is up and "
                    + "reachable; the call may be retried";
            default -> "Check the ZooKeeper server logs and the lock root path";
        };
        return new LockBackendException("ZooKeeper refused to " + what + forKey(key) + " (backend 'zookeeper', ensemble "
                + ensemble + "): " + e.code() + ". " + fix + "; nothing was granted.", key, BACKEND, e);
    }

    static LockBackendException sessionEndedWhileWaiting(String key, String node) {
        return new LockBackendException("The ZooKeeper session ended while waiting for lock '" + abbreviate(key)
                + "' (backend 'zookeeper'): its waiter node " + node + " is gone, so the lock was not granted. "
                + "Acquire again; if sessions expire often, raise the session timeout or check for long GC pauses.",
                key, BACKEND, null);
    }

    static String forKey(String key) {
        return key == null ? "" : " for lock '" + abbreviate(key) + "'";
    }

    static String abbreviate(String key) {
        return key.length() <= 120 ? key : key.substring(0, 117) + "...";
    }
}
