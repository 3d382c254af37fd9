package dev.mortise.lock.integration;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.spi.LockBackend;

/**
 * The registry and Spring Integration's components on etcd, against a real single-member etcd
 * (minimum lease TTL 2 s: an explicit lease shorter than that is granted the backend's shortest).
 */
class EtcdLockRegistryTest extends LockRegistrySuite {

    @Override
    protected LockBackend newBackend() {
        return EtcdLockBackend.builder().endpoints(Servers.etcd().endpoint()).build();
    }
}
