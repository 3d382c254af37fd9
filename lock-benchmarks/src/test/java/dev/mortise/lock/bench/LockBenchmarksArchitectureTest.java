package dev.mortise.lock.bench;

import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The package rules of lock-benchmarks, on its compiled classes: it measures the other modules
 * through what they publish, never their internal packages.
 *
 * <p>Not {@link PackageRules#assertStandard()} yet: the harness's packages form one cycle (the
 * main class, runs, reports, charts and subjects use each other), left for its own change.
 */
class LockBenchmarksArchitectureTest {

    @Test
    void noOtherModulesInternal() {
        PackageRules rules = PackageRules.of(BenchmarkMain.class);
        rules.assertNoForeignInternal();
        rules.assertApiUsesNoInternal();
    }
}
