package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.autoconfigure.MortiseLockObservationAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockObservations;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An Observation per locked call, when an {@link ObservationRegistry} exists. */
class DistributedLockObservationTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockObservationAutoConfiguration.class))
            .withBean(Recorder.class)
            .withBean(ObservationRegistry.class, () -> ObservationRegistry.create())
            .withBean(Reports.class);

    @Test
    void observationSpansTheLockedCallWithOutcomeAndKey() {
        runner.run(context -> {
            context.getBean(ObservationRegistry.class).observationConfig()
                    .observationHandler(context.getBean(Recorder.class));
            Reports reports = context.getBean(Reports.class);
            reports.run("r1");
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "report:r2")) {
                assertThatThrownBy(() -> reports.run("r2")).isInstanceOf(LockBusyException.class);
            }
            List<Observation.Context> stopped = context.getBean(Recorder.class).stopped;
            assertThat(stopped).hasSize(2);
            assertThat(stopped.get(0).getName()).isEqualTo(LockObservations.NAME);
            assertThat(stopped.get(0).getLowCardinalityKeyValues()).contains(KeyValue.of("backend", "local"),
                    KeyValue.of("name", "report"), KeyValue.of("outcome", "acquired"));
            assertThat(stopped.get(0).getHighCardinalityKeyValue(LockObservations.KEY).getValue())
                    .isEqualTo("report:r1");
            assertThat(stopped.get(1).getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "busy"));
        });
    }

    @Test
    void anApplicationsOwnLockObservationsBeanReceivesTheLockedCalls() {
        ObservationRegistry own = ObservationRegistry.create();
        Recorder recorder = new Recorder();
        own.observationConfig().observationHandler(recorder);
        runner.withBean("ownObservations", LockObservations.class, () -> new LockObservations(own)).run(context -> {
            assertThat(context).hasSingleBean(LockObservations.class);
            context.getBean(Reports.class).run("r3");
            assertThat(recorder.stopped).hasSize(1);
            assertThat(recorder.stopped.get(0).getLowCardinalityKeyValues()).contains(KeyValue.of("name", "report"),
                    KeyValue.of("mode", "write"), KeyValue.of("outcome", "acquired"));
            assertThat(context.getBean(Recorder.class).stopped).as("the registry bean's handler").isEmpty();
        });
    }

    @Test
    void noObservationsWithoutARegistryOrMicrometer() {
        LockTestSupport.localRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockObservationAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(LockObservations.class));
        runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObservations.class));
    }

    public static class Recorder implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    public static class Reports {
        @DistributedLock(key = "'report:' + #id", name = "report", onBusy = OnBusy.FAIL)
        public void run(String id) {
        }
    }
}
