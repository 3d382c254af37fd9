package dev.mortise.lock.tck;

import dev.mortise.lock.architecture.ModuleRules;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * The package rules of lock-tck, on its compiled classes ({@link PackageRules#assertStandard()}): no
 * package cycle, no use of another module's internal packages, and no API package but the root
 * reaching into this module's own.
 */
class LockTckArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(LockBackendContractSuite.class).assertStandard();
    }

    /** The module exports its API and SPI packages and no internal one, as a consumer module sees it. */
    @Test
    void theModuleExportsItsApiAndSpiOnly() {
        ModuleRules module = ModuleRules.of(LockBackendContractSuite.class);
        module.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
        module.assertConsumerSeesApiOnly();
    }
}
