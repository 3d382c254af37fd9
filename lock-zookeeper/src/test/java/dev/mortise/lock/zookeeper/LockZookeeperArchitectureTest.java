package dev.mortise.lock.zookeeper;

import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * The package rules of lock-zookeeper, on its compiled classes ({@link PackageRules#assertStandard()}): no
 * package cycle, no use of another module's internal packages, and no API package but the root
 * reaching into this module's own.
 */
class LockZookeeperArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(ZookeeperLockBackend.class).assertStandard();
    }

    @Test
    void nothingOnACallersPathWaitsInsideAMonitor() {
        MonitorWaits.assertNone(ZookeeperLockBackend.class, Map.of());
    }
}
