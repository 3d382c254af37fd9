package dev.mortise.lock.jdbc;

import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * The package rules of lock-jdbc, on its compiled classes ({@link PackageRules#assertStandard()}): no
 * package cycle, no use of another module's internal packages, and no API package but the root
 * reaching into this module's own.
 */
class LockJdbcArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(JdbcLockBackend.class).assertStandard();
    }

    @Test
    void nothingOnACallersPathWaitsInsideAMonitor() {
        MonitorWaits.assertNone(JdbcLockBackend.class, Map.of());
    }
}
