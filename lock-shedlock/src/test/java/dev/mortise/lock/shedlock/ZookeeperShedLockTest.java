package dev.mortise.lock.shedlock;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;

import java.time.Duration;

/** ShedLock's suite on ZooKeeper, against a real (in-process, curator-test) server; each client its own session. */
class ZookeeperShedLockTest extends ShedLockSuite {

    @Override
    protected LockBackend newBackend() {
        return ZookeeperLockBackend.builder().connectString(Servers.zookeeper().getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(5)).build();
    }
}
