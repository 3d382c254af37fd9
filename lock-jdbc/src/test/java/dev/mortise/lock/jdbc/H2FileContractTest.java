package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.DataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract on an H2 file in {@code AUTO_SERVER} mode, served by another JVM:
 * {@link SecondJvm} opens the file first, so every backend here reaches the database
 * through that process's embedded TCP server, as a second application instance would.
 */
class H2FileContractTest extends JdbcContractTest {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    @TempDir
    static Path dir;
    private static Process server;
    private static HikariDataSource pool;

    @BeforeAll
    static void startServingJvm() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("contract") + ";AUTO_SERVER=TRUE";
        server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), SecondJvm.class.getName(),
                url, "serve", "-").redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null && !line.equals("READY")) {
            lines.add(line);
        }
        assertThat(line).as("the serving JVM said: %s", lines).isEqualTo("READY");
        pool = TestDatabases.pool("h2-file", url, "sa", 20);
    }

    @AfterAll
    static void stopServingJvm() throws Exception {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.getOutputStream().close();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return new H2MemoryContractTest().newUnreachableBackend(operationTimeout);
    }
}
