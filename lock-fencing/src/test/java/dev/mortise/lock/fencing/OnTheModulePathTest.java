package dev.mortise.lock.fencing;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-fencing as an application on the module path uses it (the tests themselves run on the class
 * path): {@link FenceDialect#ddl(String)} reads the fence table's DDL from the resource in the
 * {@code dev.mortise.lock.fencing} package.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleReadsTheFenceTablesDdl() throws Exception {
        Object answer = ModuleApplication.over(FenceDialect.class).run(dir, Map.of(
                "module-info.java", "module mortise.app { requires dev.mortise.lock.fencing; exports app; }",
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.fencing.FenceDialect;

                        public class App {
                            public static String run() {
                                return FenceDialect.H2.ddl("fences");
                            }
                        }
                        """));

        assertThat(answer).asString().startsWith("CREATE TABLE IF NOT EXISTS fences");
    }
}
