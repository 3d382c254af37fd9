package dev.mortise.lock.shedlock.autoconfigure;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.shedlock.MortiseLockProvider;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class MortiseShedLockAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseShedLockAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local");

    @Test
    void schedulerLockAppGetsTheProviderOfTheConfiguredBackend() {
        runner.withUserConfiguration(ScheduledApp.class).run(context -> {
            assertThat(context).hasSingleBean(LockProvider.class);
            assertThat(context.getBean(LockProvider.class)).isInstanceOf(MortiseLockProvider.class);
            LockClient client = context.getBean(LockClient.class);
            assertThat(((MortiseLockProvider) context.getBean(LockProvider.class)).client()).isSameAs(client);

            Job job = context.getBean(Job.class);
            job.report();
            assertThat(job.keysHeldWhileRunning()).containsExactly("report");
            assertThat(client.heldLocks()).isEmpty();

            // The name is held elsewhere (another owner, as another instance would be): the run is skipped.
            try (var other = client.tryAcquire("report").orElseThrow()) {
                job.report();
            }
            assertThat(job.runs()).isEqualTo(1);
        });
    }

    @Test
    void keyPrefixComesFromProperties() {
        runner.withUserConfiguration(ScheduledApp.class).withPropertyValues("mortise.shedlock.key-prefix=shedlock:")
                .run(context -> {
                    Job job = context.getBean(Job.class);
                    job.report();
                    assertThat(job.keysHeldWhileRunning()).containsExactly("shedlock:report");
                });
    }

    @Test
    void backsOffForTheApplicationsOwnProvider() {
        runner.withUserConfiguration(OwnProvider.class).run(context -> {
            assertThat(context).hasSingleBean(LockProvider.class);
            assertThat(context.getBean(LockProvider.class)).isSameAs(OwnProvider.PROVIDER);
        });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("mortise.shedlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockProvider.class));
    }

    @Test
    void needsALockClient() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MortiseShedLockAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(LockProvider.class));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class ScheduledApp {

        @Bean
        Job job(LockClient client) {
            return new Job(client);
        }
    }

    /** Read through methods: the bean is a class proxy, whose own fields are unset. */
    static class Job {

        private final LockClient client;
        private final AtomicInteger runs = new AtomicInteger();
        private volatile List<String> keysHeldWhileRunning = List.of();

        Job(LockClient client) {
            this.client = client;
        }

        @SchedulerLock(name = "report")
        public void report() {
            LockAssert.assertLocked();
            runs.incrementAndGet();
            keysHeldWhileRunning = client.heldLocks().stream().map(HeldLock::key).toList();
        }

        public int runs() {
            return runs.get();
        }

        public List<String> keysHeldWhileRunning() {
            return keysHeldWhileRunning;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnProvider {

        static final LockProvider PROVIDER = configuration -> Optional.empty();

        @Bean
        LockProvider lockProvider() {
            return PROVIDER;
        }
    }
}
