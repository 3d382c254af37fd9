package dev.mortise.lock.integration;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;

import java.time.Duration;

/** The registry and Spring Integration's components on ZooKeeper (curator-test server); each client its own session. */
class ZookeeperLockRegistryTest extends LockRegistrySuite {

    @Override
    protected LockBackend newBackend() {
        return ZookeeperLockBackend.builder().connectString(Servers.zookeeper().getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(5)).build();
    }
}
