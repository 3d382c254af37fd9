package dev.mortise.lock.spring;

import dev.mortise.lock.architecture.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The package rules of lock-spring-boot-starter, on its compiled classes ({@link
 * PackageRules#assertStandard()}): no package cycle, no use of another module's internal packages,
 * and no API package reaching into this module's own but the root and the packages named here,
 * which assemble the starter: the auto-configuration and the beans it registers around the
 * internal interceptor.
 */
class LockSpringBootStarterArchitectureTest {

    @Test
    void packages() {
        PackageRules.of(LockClients.class)
                .frontDoor("dev.mortise.lock.spring.autoconfigure", "the auto-configuration assembles the starter")
                .frontDoor("dev.mortise.lock.spring.aspectj", "the aspect the auto-configuration registers runs the internal invoker")
                .frontDoor("dev.mortise.lock.spring.actuate", "endpoints and health indicators read the internal registry of holds")
                .frontDoor("dev.mortise.lock.spring.fencing", "Fences is the internal FenceCheck the interceptor calls")
                .frontDoor("dev.mortise.lock.spring.metrics", "LockObservations is the internal LockObserver the interceptor reports to")
                .assertStandard();
    }
}
