package dev.mortise.lock.integration;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

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
        // Spring Integration's jar, an automatic module too, needs these at run time.
        String[] alsoNeeded = Stream.concat(ModuleApplication.SPRING_BOOT.stream(),
                Stream.of("spring.messaging", "spring.tx")).toArray(String[]::new);
        Object answer = ModuleApplication.over(MortiseLockRegistry.class).run(dir, ModuleApplication.springBoot(
                List.of("dev.mortise.lock.integration", "dev.mortise.lock.spring"), """
                        import dev.mortise.lock.HeldLock;
                        import dev.mortise.lock.LockClient;
                        import java.util.concurrent.locks.Lock;
                        import org.springframework.integration.support.locks.LockRegistry;
                        """, "", """
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
                        """, "--mortise.lock.backend=local", "--mortise.integration.key-prefix=si:"),
                alsoNeeded);

        assertThat(answer).isEqualTo("[si:invoices] held through MortiseLockRegistry");
    }
}
