package dev.mortise.lock.vthreads;

import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The package rules of lock-virtual-threads, on its compiled classes ({@link PackageRules#assertStandard()}):
 * no package cycle, no use of another module's internal packages.
 */
class LockVirtualThreadsArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(VirtualWaiters.class).assertStandard();
    }
}
