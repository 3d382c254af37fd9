package dev.mortise.lock.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The auto-configurations are registered the Spring Boot 4 way and follow its conventions. */
class AutoConfigurationImportsTests {

    @Test
    void everyAutoConfigurationIsRegisteredPublicFinalAndAnnotated() throws Exception {
        List<String> ours = new ArrayList<>();
        ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                .forEach(name -> {
                    if (name.startsWith("dev.mortise.")) {
                        ours.add(name);
                    }
                });
        assertThat(ours).containsExactlyInAnyOrder(
                MortiseLockBackendsAutoConfiguration.class.getName(),
                MortiseLockAutoConfiguration.class.getName(),
                MortiseLockMetricsAutoConfiguration.class.getName(),
                MortiseLockObservationAutoConfiguration.class.getName(),
                MortiseLockEndpointAutoConfiguration.class.getName(),
                MortiseLockHealthAutoConfiguration.class.getName(),
                MortiseLockFencingAutoConfiguration.class.getName(),
                MortiseLeadershipAutoConfiguration.class.getName(),
                MortiseLeadershipHealthAutoConfiguration.class.getName(),
                MortiseLeadershipMetricsAutoConfiguration.class.getName());
        for (String name : ours) {
            Class<?> type = Class.forName(name);
            assertThat(Modifier.isPublic(type.getModifiers()) && Modifier.isFinal(type.getModifiers()))
                    .as(name + " is public final").isTrue();
            assertThat(type.isAnnotationPresent(AutoConfiguration.class)).as(name + " is @AutoConfiguration").isTrue();
        }
    }
}
