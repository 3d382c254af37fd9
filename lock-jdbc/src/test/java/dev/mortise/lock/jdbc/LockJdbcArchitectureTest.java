package dev.mortise.lock.jdbc;

import dev.mortise.lock.architecture.ModuleRules;
import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
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

    /** The module exports its API and SPI packages and no internal one, as a consumer module sees it. */
    @Test
    void theModuleExportsItsApiAndSpiOnly() {
        ModuleRules module = ModuleRules.of(JdbcLockBackend.class);
        module.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
        module.assertConsumerSeesApiOnly();
    }
}
