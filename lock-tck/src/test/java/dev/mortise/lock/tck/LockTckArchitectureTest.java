package dev.mortise.lock.tck;

import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

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
}
