package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The ZooKeeper subjects: Mortise, Curator's {@code InterProcessMutex}, Spring Integration's
 * {@code ZookeeperLockRegistry}, and a floor the issue does not ask for but every queue-based
 * recipe pays: create and delete one ephemeral sequential node (two round trips).
 */
public final class ZookeeperSubjects {

    /** Ids in report order. */
    public static final List<String> IDS = List.of("zookeeper/mortise", "zookeeper/curator-mutex",
            "zookeeper/si-registry", "zookeeper/floor-create-delete");

    /** Peers of the read-write scenario (not in {@link #IDS}). */
    public static final List<String> READ_WRITE_IDS = List.of("zookeeper/mortise", "zookeeper/curator-rwlock");

    /** Peers of the multi-key scenario. */
    public static final List<String> MULTI_KEY_IDS = List.of("zookeeper/mortise", "zookeeper/curator-multilock");

    private ZookeeperSubjects() {
    }

    public static LockSubject create(String id, String connectString) {
        return switch (id) {
            case "zookeeper/mortise" -> MortiseSubjects.over(id,
                    ZookeeperLockBackend.builder().connectString(connectString).build());
            case "zookeeper/curator-mutex" -> curatorMutex(id, connectString);
            case "zookeeper/curator-rwlock" -> curatorReadWrite(id, connectString);
            case "zookeeper/curator-multilock" -> curatorMulti(id, connectString);
            case "zookeeper/si-registry" -> registry(id, connectString);
            case "zookeeper/floor-create-delete" -> floor(id, connectString);
            default -> throw new IllegalArgumentException("unknown subject " + id);
        };
    }

    /** A started Curator client with the usual retry policy. */
    public static CuratorFramework curator(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString,
                new ExponentialBackoffRetry(100, 3));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("ZooKeeper at " + connectString + " not reachable within 30 s");
        }
        return client;
    }

    private static LockSubject curatorMutex(String id, String connectString) {
        CuratorFramework client = unchecked(connectString);
        return SimpleSubject.of(id, "Curator InterProcessMutex", Role.PEER, true, (key, wait) -> {
            InterProcessMutex mutex = new InterProcessMutex(client, "/curator-bench/" + key);
            return mutex.acquire(wait.toNanos(), TimeUnit.NANOSECONDS) ? mutex::release : null;
        }, client);
    }

    /** Curator's {@code InterProcessReadWriteLock}: its read mutex for shared, its write mutex for exclusive. */
    private static LockSubject curatorReadWrite(String id, String connectString) {
        CuratorFramework client = unchecked(connectString);
        SimpleSubject.ModeAcquirer modes = (key, shared, wait) -> {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, "/curator-rw-bench/" + key);
            InterProcessMutex mutex = shared ? rw.readLock() : rw.writeLock();
            return mutex.acquire(wait.toNanos(), TimeUnit.NANOSECONDS) ? mutex::release : null;
        };
        return SimpleSubject.of(id, "Curator InterProcessReadWriteLock", Role.PEER, true,
                (key, wait) -> modes.acquire(key, false, wait), client).withModes(modes);
    }

    /** Curator's {@code InterProcessMultiLock} over one {@code InterProcessMutex} path per key (sorted). */
    private static LockSubject curatorMulti(String id, String connectString) {
        CuratorFramework client = unchecked(connectString);
        SimpleSubject.MultiAcquirer multi = (keys, wait) -> {
            InterProcessMultiLock lock = new InterProcessMultiLock(client,
                    keys.stream().map(k -> "/curator-multi-bench/" + k).toList());
            return lock.acquire(wait.toNanos(), TimeUnit.NANOSECONDS) ? lock::release : null;
        };
        return SimpleSubject.of(id, "Curator InterProcessMultiLock", Role.PEER, true,
                (key, wait) -> multi.acquireAll(List.of(key), wait), client).withMulti(multi);
    }

    private static LockSubject registry(String id, String connectString) {
        CuratorFramework client = unchecked(connectString);
        ZookeeperLockRegistry registry = new ZookeeperLockRegistry(client, "/si-bench");
        return SimpleSubject.of(id, "Spring Integration ZookeeperLockRegistry", Role.PEER, true, (key, wait) -> {
            Lock lock = registry.obtain(key);
            return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? lock::unlock : null;
        }, client, registry::destroy);
    }

    private static LockSubject floor(String id, String connectString) {
        CuratorFramework client = unchecked(connectString);
        return SimpleSubject.of(id, "floor: create + delete node", Role.FLOOR, false, (key, wait) -> {
            String path = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/floor-bench/" + key + "/n-");
            return () -> client.delete().forPath(path);
        }, client);
    }

    private static CuratorFramework unchecked(String connectString) {
        try {
            return curator(connectString);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
