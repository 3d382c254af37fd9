package dev.mortise.lock;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-api as an application on the module path uses it (the tests themselves run on the class
 * path): the API finds its core, a service of the non-exported {@code internal} package, through
 * the module's {@code uses}/{@code provides}, and a lock is taken and given back.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleTakesALockOverTheInProcessBackend() throws Exception {
        Object answer = ModuleApplication.over(LockClient.class).run(dir, Map.of(
                "module-info.java", "module mortise.app { requires dev.mortise.lock; exports app; }",
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.LockClient;
                        import dev.mortise.lock.LockLease;
                        import dev.mortise.lock.local.LocalLockBackend;

                        public class App {
                            public static String run() {
                                try (LockClient client = LockClient.builder(LocalLockBackend.create()).build();
                                     LockLease lease = client.tryAcquire("orders").orElseThrow()) {
                                    return lease.key() + " held by " + client.getClass().getModule().getName()
                                            + (client.getClass().getModule().isExported("dev.mortise.lock.internal")
                                                    ? ", which exports its core" : "");
                                }
                            }
                        }
                        """));

        assertThat(answer).isEqualTo("orders held by dev.mortise.lock");
    }
}
