package dev.mortise.lock.bench;

import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * The package rules of lock-benchmarks, on its compiled classes ({@link
 * PackageRules#assertStandard()}): no package cycle (what the harness's packages share, the
 * endpoints, child JVMs, roles and result records, lives in {@code common}, which uses none of
 * them), and it measures the other modules through what they publish, never their internal
 * packages.
 */
class LockBenchmarksArchitectureTest {

    private final PackageRules rules = PackageRules.of(BenchmarkMain.class);

    @Test
    void noCycleNoOtherModulesInternal() {
        rules.assertStandard();
        rules.assertApiUsesNoInternal();
    }

    @Test
    void theSharedPackageUsesNoOtherOfTheHarness() {
        rules.assertUsesOnly("dev.mortise.lock.bench.common");
    }

    @Test
    void everyPackageSaysWhatItIs() {
        rules.assertPackagesDescribed(Path.of("src/main/java"));
    }
}
