/**
 * The etcd backend — API: {@link dev.mortise.lock.etcd.EtcdLockBackend} and its
 * {@link dev.mortise.lock.etcd.EtcdLockBackendBuilder}, which users may depend on. Locks,
 * read-write locks and native semaphores are keys on leases in one queue per lock, on jetcd;
 * the fencing token is the holder key's create revision. How it works, and what it
 * guarantees, is in {@code docs/etcd.md}.
 */
package dev.mortise.lock.etcd;
