package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.actuate.LocksEndpoint;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The conditions of the endpoint and health auto-configurations. */
class MortiseLockActuatorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockEndpointAutoConfiguration.class, MortiseLockHealthAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local", "management.endpoints.web.exposure.include=locks");

    @Test
    void endpointAndOneHealthIndicatorPerBackend() {
        runner.withPropertyValues("mortise.lock.local.enabled=true", "mortise.lock.backend=redis")
                .withBean("remote", LockBackend.class, () -> new MortiseLockAutoConfigurationTests.NamedBackend("redis"))
                .run(context -> {
                    assertThat(context).hasSingleBean(LocksEndpoint.class).hasBean("locksHealthContributor");
                    CompositeHealthContributor health = context.getBean("locksHealthContributor",
                            CompositeHealthContributor.class);
                    assertThat(health.stream()).extracting(entry -> entry.name()).containsExactlyInAnyOrder("local",
                            "redis");
                    assertThat(((HealthIndicator) health.getContributor("redis")).health().getStatus())
                            .isEqualTo(Status.UP);
                });
    }

    @Test
    void healthIndicatorCanBeDisabled() {
        runner.withPropertyValues("management.health.locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("locksHealthContributor"));
    }

    @Test
    void nothingWithoutActuatorClasses() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class)
                        .doesNotHaveBean("locksHealthContributor"));
    }

    @Test
    void nothingWhenMortiseIsDisabled() {
        runner.withPropertyValues("mortise.lock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class)
                        .doesNotHaveBean("locksHealthContributor"));
    }
}
