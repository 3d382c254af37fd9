package dev.mortise.lock.integration.autoconfigure;

import dev.mortise.lock.integration.MortiseLock;
import dev.mortise.lock.integration.MortiseLockRegistry;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class MortiseLockRegistryAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockRegistryAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local");

    @Test
    void aLeaderInitiatorAppRunsOnTheConfiguredBackendUnchanged() {
        runner.withUserConfiguration(LeaderApp.class).run(context -> {
            assertThat(context).hasSingleBean(LockRegistry.class);
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(MortiseLockRegistry.class);
            LockRegistryLeaderInitiator initiator = context.getBean(LockRegistryLeaderInitiator.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> initiator.getContext().isLeader());
        });
    }

    @Test
    void keyPrefixComesFromProperties() {
        runner.withPropertyValues("mortise.integration.key-prefix=si:").run(context -> {
            MortiseLock lock = (MortiseLock) context.getBean(MortiseLockRegistry.class).obtain("orders");
            assertThat(lock.key()).isEqualTo("si:orders");
        });
    }

    @Test
    void backsOffForTheApplicationsOwnRegistry() {
        runner.withUserConfiguration(OwnRegistry.class).run(context -> {
            assertThat(context).hasSingleBean(LockRegistry.class);
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
        });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("mortise.integration.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void needsALockClient() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MortiseLockRegistryAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(LockRegistry.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class LeaderApp {

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> registry) {
            return new LockRegistryLeaderInitiator(registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {

        @Bean
        DefaultLockRegistry lockRegistry() {
            return new DefaultLockRegistry();
        }
    }
}
