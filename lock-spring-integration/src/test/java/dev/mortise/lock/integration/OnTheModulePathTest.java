package dev.mortise.lock.integration;

import dev.mortise.lock.architecture.ModuleRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application on the module path with the starter and this module (the tests
 * themselves run on the class path): the auto-configuration is built, its properties bound, and
 * the {@code LockRegistry} it makes hands out a lock that is a Mortise lock.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void aSpringBootApplicationModuleLocksThroughTheRegistry() throws Exception {
        List<String> needed = new ArrayList<>(ModuleRules.SPRING_BOOT);
        needed.addAll(List.of("spring.messaging", "spring.tx")); // Spring Integration's, at run time
        String[] alsoNeeded = needed.toArray(String[]::new);
        ModuleRules module = ModuleRules.of(MortiseLockRegistry.class);
        Path application = module.compileApplication(dir, Map.of(
                "module-info.java", """
                        module mortise.app {
                            requires dev.mortise.lock.integration;
                            requires dev.mortise.lock.spring;
                            opens app; // Spring builds the application's beans
                        }
                        """,
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.HeldLock;
                        import dev.mortise.lock.LockClient;
                        import java.util.concurrent.locks.Lock;
                        import org.springframework.boot.SpringApplication;
                        import org.springframework.boot.autoconfigure.SpringBootApplication;
                        import org.springframework.context.ConfigurableApplicationContext;
                        import org.springframework.integration.support.locks.LockRegistry;

                        @SpringBootApplication(proxyBeanMethods = false)
                        public class App {

                            public static String run() {
                                SpringApplication application = new SpringApplication(App.class);
                                try (ConfigurableApplicationContext context = application.run(
                                        "--mortise.lock.backend=local", "--mortise.integration.key-prefix=si:",
                                        "--spring.main.banner-mode=off")) {
                                    LockRegistry registry = context.getBean(LockRegistry.class);
                                    Lock lock = registry.obtain("invoices");
                                    lock.lock();
                                    try {
                                        return context.getBean(LockClient.class).heldLocks().stream()
                                                .map(HeldLock::key).toList() + " held through "
                                                + registry.getClass().getSimpleName();
                                    } finally {
                                        lock.unlock();
                                    }
                                }
                            }
                        }
                        """), alsoNeeded);

        ModuleLayer layer = module.layer(List.of(application), alsoNeeded);
        Object answer = ModuleRules.call(layer, "mortise.app", "app.App", "run");

        assertThat(answer).isEqualTo("[si:invoices] held through MortiseLockRegistry");
    }
}
