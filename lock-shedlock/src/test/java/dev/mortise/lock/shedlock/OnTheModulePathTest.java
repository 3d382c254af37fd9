package dev.mortise.lock.shedlock;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application on the module path with the starter and this module (the tests
 * themselves run on the class path): the auto-configuration is built, its properties bound, and
 * the {@code LockProvider} it makes takes a ShedLock lock as a Mortise lock.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void aSpringBootApplicationModuleTakesAShedLockLock() throws Exception {
        Object answer = ModuleApplication.over(MortiseLockProvider.class).run(dir, ModuleApplication.springBoot(
                List.of("dev.mortise.lock.shedlock", "dev.mortise.lock.spring"), """
                        import dev.mortise.lock.HeldLock;
                        import dev.mortise.lock.LockClient;
                        import java.time.Duration;
                        import java.time.Instant;
                        import net.javacrumbs.shedlock.core.LockConfiguration;
                        import net.javacrumbs.shedlock.core.LockProvider;
                        import net.javacrumbs.shedlock.core.SimpleLock;
                        """, "", """
                                    LockProvider provider = context.getBean(LockProvider.class);
                                    SimpleLock lock = provider.lock(new LockConfiguration(Instant.now(), "report",
                                            Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
                                    String held = context.getBean(LockClient.class).heldLocks().stream()
                                            .map(HeldLock::key).toList().toString();
                                    lock.unlock();
                                    return held + " held through " + provider.getClass().getSimpleName();
                        """, "--mortise.lock.backend=local", "--mortise.shedlock.key-prefix=shedlock:"),
                ModuleApplication.SPRING_BOOT.toArray(String[]::new));

        assertThat(answer).isEqualTo("[shedlock:report] held through MortiseLockProvider");
    }
}
