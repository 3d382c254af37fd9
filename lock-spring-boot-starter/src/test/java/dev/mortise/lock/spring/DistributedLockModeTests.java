package dev.mortise.lock.spring;

import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @DistributedLock(mode = READ | WRITE)}: the mode reaches the metrics of every part. */
class DistributedLockModeTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockMetricsAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=readwrite", "mortise.lock.wait-for=5s")
            .withBean(ReadWriteLocalBackend.class, ReadWriteLocalBackend::new)
            .withBean(SimpleMeterRegistry.class)
            .withBean(Catalog.class);

    @Test
    void acquiresAndHoldsAreTaggedWithTheMode() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Catalog catalog = context.getBean(Catalog.class);
            assertThat(catalog.read("1")).isEqualTo(1);
            catalog.write("1");
            catalog.write("2");
            catalog.readAll(List.of("3", "4", "5"));
            assertThat(acquired(registry, "read")).as("one single read and three parts of a multi-key read")
                    .isEqualTo(4);
            assertThat(acquired(registry, "write")).isEqualTo(2);
            assertThat(registry.find(LockMetrics.HELD).tag("name", "catalog").tag(LockMetrics.TAG_MODE, "read")
                    .longTaskTimer()).isNotNull();
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("name", LockMetrics.PROGRAMMATIC).timers())
                    .allSatisfy(t -> assertThat(t.getId().getTag(LockMetrics.TAG_MODE)).isEqualTo("write"));
        });
    }

    private static long acquired(MeterRegistry registry, String mode) {
        return registry.get(LockMetrics.ACQUIRE).tag("name", "catalog").tag(LockMetrics.TAG_MODE, mode)
                .tag("outcome", "acquired").timer().count();
    }

    public static class Catalog {
        private final MeterRegistry registry;

        public Catalog(MeterRegistry registry) {
            this.registry = registry;
        }

        @DistributedLock(key = "'item:' + #id", name = "catalog", mode = LockAccess.READ)
        public long read(String id) {
            return registry.get(LockMetrics.HELD).tag("name", "catalog").tag(LockMetrics.TAG_MODE, "read")
                    .longTaskTimer().activeTasks();
        }

        @DistributedLock(key = "'item:' + #id", name = "catalog")
        public void write(String id) {
        }

        @DistributedLock(key = "#ids", name = "catalog", mode = LockAccess.READ)
        public void readAll(List<String> ids) {
        }
    }
}
