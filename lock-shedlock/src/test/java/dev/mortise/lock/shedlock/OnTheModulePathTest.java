package dev.mortise.lock.shedlock;

import dev.mortise.lock.architecture.ModuleRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application on the module path with the starter and this module (the tests
 * themselves run on the class path): the auto-configuration is built, its properties bound, and
 * the {@code LockProvider} it makes takes a ShedLock lock as a Mortise lock.
 */
class OnTheModulePathTest {

    private static final String[] SPRING_AT_RUN_TIME = ModuleRules.SPRING_BOOT.toArray(String[]::new);

    @TempDir
    Path dir;

    @Test
    void aSpringBootApplicationModuleTakesAShedLockLock() throws Exception {
        ModuleRules module = ModuleRules.of(MortiseLockProvider.class);
        Path application = module.compileApplication(dir, Map.of(
                "module-info.java", """
                        module mortise.app {
                            requires dev.mortise.lock.shedlock;
                            requires dev.mortise.lock.spring;
                            opens app; // Spring builds the application's beans
                        }
                        """,
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.HeldLock;
                        import dev.mortise.lock.LockClient;
                        import java.time.Duration;
                        import java.time.Instant;
                        import net.javacrumbs.shedlock.core.LockConfiguration;
                        import net.javacrumbs.shedlock.core.LockProvider;
                        import net.javacrumbs.shedlock.core.SimpleLock;
                        import org.springframework.boot.SpringApplication;
                        import org.springframework.boot.autoconfigure.SpringBootApplication;
                        import org.springframework.context.ConfigurableApplicationContext;

                        @SpringBootApplication(proxyBeanMethods = false)
                        public class App {

                            public static String run() {
                                SpringApplication application = new SpringApplication(App.class);
                                try (ConfigurableApplicationContext context = application.run(
                                        "--mortise.lock.backend=local", "--mortise.shedlock.key-prefix=shedlock:",
                                        "--spring.main.banner-mode=off")) {
                                    LockProvider provider = context.getBean(LockProvider.class);
                                    SimpleLock lock = provider.lock(new LockConfiguration(Instant.now(), "report",
                                            Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
                                    String held = context.getBean(LockClient.class).heldLocks().stream()
                                            .map(HeldLock::key).toList().toString();
                                    lock.unlock();
                                    return held + " held through " + provider.getClass().getSimpleName();
                                }
                            }
                        }
                        """), SPRING_AT_RUN_TIME);

        ModuleLayer layer = module.layer(List.of(application), SPRING_AT_RUN_TIME);
        Object answer = ModuleRules.call(layer, "mortise.app", "app.App", "run");

        assertThat(answer).isEqualTo("[shedlock:report] held through MortiseLockProvider");
    }
}
