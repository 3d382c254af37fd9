package dev.mortise.lock.test;

import dev.mortise.lock.architecture.ModuleRules;
import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

/**
 * The package rules of lock-test: built on lock-api's API, SPI and in-process backend alone (never
 * its internals), with no package cycle, and every package saying in its {@code package-info.java}
 * whether it is API, SPI or internal.
 */
class LockTestArchitectureTest {

    private final PackageRules rules = PackageRules.of(TestLockClient.class);

    @Test
    void noCycleNoInternalNoOtherModulesInternal() {
        rules.assertStandard();
    }

    @Test
    void usesOnlyLockApisApiSpiAndInProcessBackend() {
        rules.assertUsesOnly("dev.mortise.lock.test", "dev.mortise.lock", "dev.mortise.lock.spi",
                "dev.mortise.lock.local");
    }

    @Test
    void everyPackageSaysWhatItIs() {
        rules.assertPackagesDescribed(Path.of("src/main/java"));
    }

    @Test
    void nothingOnACallersPathWaitsInsideAMonitor() {
        MonitorWaits.assertNone(TestLockClient.class, Map.of());
    }

    /** The module exports its API and SPI packages and no internal one, as a consumer module sees it. */
    @Test
    void theModuleExportsItsApiAndSpiOnly() {
        ModuleRules module = ModuleRules.of(TestLockClient.class);
        module.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
        module.assertConsumerSeesApiOnly();
    }
}
