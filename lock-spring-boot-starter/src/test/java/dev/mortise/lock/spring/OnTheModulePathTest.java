package dev.mortise.lock.spring;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application on the module path with the starter (the tests themselves run on the
 * class path): the auto-configuration is built and its properties bound, and a
 * {@code @DistributedLock} method runs under its lock with its SpEL key, which is what needs the
 * starter's packages open to Spring's modules.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void aSpringBootApplicationModuleRunsALockedMethodOnTheInProcessBackend() throws Exception {
        Object answer = ModuleApplication.over(LockClients.class).run(dir, ModuleApplication.springBoot(
                List.of("dev.mortise.lock.spring"), """
                        import dev.mortise.lock.LockContext;
                        import dev.mortise.lock.LockLease;
                        import dev.mortise.lock.spring.DistributedLock;
                        import org.springframework.context.annotation.Bean;
                        """, """
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
                        """, """
                                    return context.getBean(Orders.class).place(new Order("42"));
                        """, "--mortise.lock.backend=local", "--mortise.lock.wait-for=2s"),
                ModuleApplication.SPRING_BOOT.toArray(String[]::new));

        assertThat(answer).isEqualTo("placed 42 under order:42");
    }
}
