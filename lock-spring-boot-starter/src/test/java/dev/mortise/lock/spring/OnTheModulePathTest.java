package dev.mortise.lock.spring;

import dev.mortise.lock.architecture.ModuleRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application on the module path with the starter (the tests themselves run on the
 * class path): the auto-configuration is built and its properties bound, and a
 * {@code @DistributedLock} method runs under its lock with its SpEL key, which is what needs the
 * starter's packages open to Spring's modules.
 */
class OnTheModulePathTest {

    private static final String[] SPRING_AT_RUN_TIME = ModuleRules.SPRING_BOOT.toArray(String[]::new);

    @TempDir
    Path dir;

    @Test
    void aSpringBootApplicationModuleRunsALockedMethodOnTheInProcessBackend() throws Exception {
        ModuleRules module = ModuleRules.of(LockClients.class);
        Path application = module.compileApplication(dir, Map.of(
                "module-info.java", """
                        module mortise.app {
                            requires dev.mortise.lock.spring;
                            opens app; // Spring builds and proxies the application's beans
                        }
                        """,
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.LockContext;
                        import dev.mortise.lock.LockLease;
                        import dev.mortise.lock.spring.DistributedLock;
                        import org.springframework.boot.SpringApplication;
                        import org.springframework.boot.autoconfigure.SpringBootApplication;
                        import org.springframework.context.ConfigurableApplicationContext;
                        import org.springframework.context.annotation.Bean;

                        @SpringBootApplication(proxyBeanMethods = false)
                        public class App {

                            public record Order(String id) {
                            }

                            public static class Orders {
                                @DistributedLock(key = "'order:' + #root.args[0].id()", waitFor = "1s")
                                public String place(Order order) {
                                    return "placed " + order.id() + " under "
                                            + LockContext.current().map(LockLease::key).orElse("no lock");
                                }
                            }

                            @Bean
                            Orders orders() {
                                return new Orders();
                            }

                            public static String run() {
                                SpringApplication application = new SpringApplication(App.class);
                                try (ConfigurableApplicationContext context = application.run(
                                        "--mortise.lock.backend=local", "--mortise.lock.wait-for=2s",
                                        "--spring.main.banner-mode=off")) {
                                    return context.getBean(Orders.class).place(new Order("42"));
                                }
                            }
                        }
                        """), SPRING_AT_RUN_TIME);

        ModuleLayer layer = module.layer(List.of(application), SPRING_AT_RUN_TIME);
        Object answer = ModuleRules.call(layer, "mortise.app", "app.App", "run");

        assertThat(answer).isEqualTo("placed 42 under order:42");
    }
}
