package dev.mortise.lock;

import dev.mortise.lock.architecture.ModuleRules;
import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

/**
 * The package rules of lock-api, on its compiled classes: no package cycle, the API ({@code
 * dev.mortise.lock}) and the SPI ({@code spi}) use nothing but each other, the in-process and the
 * migrating backends ({@code local}, {@code migration}) are built on the API and SPI alone, and
 * the implementation ({@code internal} and below) is reached by none of them. Every package says
 * in its {@code package-info.java} whether it is API, SPI or internal, and the module
 * {@code dev.mortise.lock} exports the API and SPI packages and no other.
 */
class LockApiArchitectureTest {

    private static final String API = "dev.mortise.lock";
    private static final String SPI = "dev.mortise.lock.spi";

    /**
     * The SPI speaks the API's vocabulary (a request's {@link LockMode}, a loss's {@link LostReason})
     * while the API's entry point takes a {@link dev.mortise.lock.spi.LockBackend}: the one cycle
     * lock-api keeps, since breaking it moves public types of the API or the SPI.
     */
    private final PackageRules rules = PackageRules.of(LockClient.class)
            .acceptUse(SPI, API + ".LockMode", "the SPI speaks the API's lock modes")
            .acceptUse(SPI, API + ".LostReason", "the SPI speaks the API's loss reasons");

    @Test
    void noCycleNoInternalFromTheApiNoOtherModulesInternal() {
        rules.assertStandard();
        // Stricter than the standard rule: lock-api's root is the contract, not a backend's front door.
        rules.assertApiUsesNoInternal();
    }

    @Test
    void theApiAndTheSpiUseOnlyEachOther() {
        rules.assertUsesOnly(API, SPI);
        rules.assertUsesOnly(SPI, API);
    }

    @Test
    void theBundledBackendsAreBuiltOnTheApiAndSpiAlone() {
        rules.assertUsesOnly(API + ".local", API, SPI);
        rules.assertUsesOnly(API + ".migration", API, SPI);
    }

    @Test
    void nothingOnACallersPathWaitsInsideAMonitor() {
        MonitorWaits.assertNone(LockClient.class, Map.of("dev.mortise.lock.internal.leader.Candidate",
                "waits between terms on the candidate's own platform thread (mortise-candidate-<group>)"));
    }

    @Test
    void everyPackageSaysWhatItIs() {
        rules.assertPackagesDescribed(Path.of("src/main/java"));
    }

    @Test
    void theModuleExportsTheApiAndSpiOnly() {
        ModuleRules module = ModuleRules.of(LockClient.class);
        module.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
        module.assertConsumerSeesApiOnly();
    }
}
