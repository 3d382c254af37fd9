package dev.mortise.lock.jdbc;

import dev.mortise.lock.architecture.ModuleApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-jdbc as an application on the module path uses it (the tests themselves run on the class
 * path): the backend creates its table from the DDL resource in its {@code dev.mortise.lock.jdbc}
 * package, the resource that {@link JdbcDialect#schemaResource()} names for schema tools is found
 * by its class loader, and a lock is taken on H2.
 */
class OnTheModulePathTest {

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleCreatesTheTableAndTakesALockOnH2() throws Exception {
        Object answer = ModuleApplication.over(JdbcLockBackend.class).run(dir, Map.of(
                "module-info.java", """
                        module mortise.app {
                            requires dev.mortise.lock.jdbc;
                            requires com.h2database;
                            requires java.naming; // H2's data source is a javax.naming.Referenceable
                            exports app;
                        }
                        """,
                "app/App.java", """
                        package app;

                        import dev.mortise.lock.LockClient;
                        import dev.mortise.lock.LockLease;
                        import dev.mortise.lock.jdbc.JdbcDialect;
                        import dev.mortise.lock.jdbc.JdbcLockBackend;
                        import java.io.InputStream;
                        import org.h2.jdbcx.JdbcDataSource;

                        public class App {
                            public static String run() throws Exception {
                                JdbcDataSource h2 = new JdbcDataSource();
                                h2.setURL("jdbc:h2:mem:modulepath;DB_CLOSE_DELAY=-1");
                                String resource;
                                try (InputStream in = JdbcDialect.class.getClassLoader()
                                        .getResourceAsStream(JdbcDialect.H2.schemaResource())) {
                                    resource = in == null ? "no schema resource" : "schema resource found";
                                }
                                try (LockClient client = LockClient.builder(
                                             JdbcLockBackend.builder(h2).createTableIfMissing(true).build()).build();
                                     LockLease lease = client.tryAcquire("orders").orElseThrow()) {
                                    return resource + ", " + lease.key() + " held";
                                }
                            }
                        }
                        """));

        assertThat(answer).isEqualTo("schema resource found, orders held");
    }
}
