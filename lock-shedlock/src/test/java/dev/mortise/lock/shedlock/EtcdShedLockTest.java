package dev.mortise.lock.shedlock;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.spi.LockBackend;

/**
 * ShedLock's suite on etcd, against a real single-member etcd (minimum lease TTL 2 s, so
 * the suite's 2 ms and 50 ms {@code lockAtMostFor} are granted the backend's shortest lease
 * and ended by the provider).
 */
class EtcdShedLockTest extends ShedLockSuite {

    @Override
    protected LockBackend newBackend() {
        return EtcdLockBackend.builder().endpoints(Servers.etcd().endpoint()).build();
    }
}
