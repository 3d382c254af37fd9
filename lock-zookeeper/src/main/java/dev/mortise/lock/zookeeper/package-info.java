/**
 * The ZooKeeper backend — API: {@link dev.mortise.lock.zookeeper.ZookeeperLockBackend} and its
 * {@link dev.mortise.lock.zookeeper.ZookeeperLockBackendBuilder}, which users may depend on.
 * Locks, read-write locks and native semaphores are ephemeral sequential nodes in one queue
 * per key, on Apache Curator; holds are bound to the ZooKeeper session. How it works, and
 * what it guarantees, is in {@code docs/zookeeper.md}.
 */
package dev.mortise.lock.zookeeper;
