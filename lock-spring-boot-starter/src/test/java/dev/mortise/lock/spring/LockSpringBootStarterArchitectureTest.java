package dev.mortise.lock.spring;

import dev.mortise.lock.architecture.ModuleRules;
import dev.mortise.lock.architecture.MonitorWaits;
import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

/**
 * The package rules of lock-spring-boot-starter, on its compiled classes ({@link
 * PackageRules#assertStandard()}): no package cycle, no use of another module's internal packages,
 * and no API package reaching into this module's own but the root and the packages named here.
 * No API type implements or exposes an internal one: where the engine calls a public type
 * ({@code Fences}, {@code LockObservations}), an adapter in the auto-configuration wraps it.
 */
class LockSpringBootStarterArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(LockClients.class)
                .frontDoor("dev.mortise.lock.spring.autoconfigure",
                        "the auto-configuration assembles the engine, and adapts the public beans it calls")
                .frontDoor("dev.mortise.lock.spring.aspectj",
                        "AspectJ instantiates the aspect, which must run the engine (handed over in WovenInvoker)")
                .frontDoor("dev.mortise.lock.spring.actuate", "the locks endpoint reads the engine's record of "
                        + "multi-key holds (AnnotatedHolds), health details name Spring properties (SpringTerms)")
                .frontDoor("dev.mortise.lock.spring.metrics", "LockMetrics tags a client's events with the "
                        + "@DistributedLock name the engine sets on the acquiring thread (AcquiringName)")
                .assertStandard();
    }

    @Test
    void everyPackageSaysWhatItIs() {
        PackageRules.of(LockClients.class).assertPackagesDescribed(Path.of("src/main/java"));
    }

    @Test
    void nothingOnACallersPathWaitsInsideAMonitor() {
        MonitorWaits.assertNone(LockClients.class, Map.of());
    }

    /** The module exports its API and SPI packages and no internal one, as a consumer module sees it. */
    @Test
    void theModuleExportsItsApiAndSpiOnly() {
        ModuleRules module = ModuleRules.of(LockClients.class);
        module.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
        module.assertConsumerSeesApiOnly();
    }
}
