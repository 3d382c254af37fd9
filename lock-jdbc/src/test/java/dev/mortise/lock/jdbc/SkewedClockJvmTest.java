package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.tck.server.Binaries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second JVM whose wall clock runs a day ahead (started under libfaketime, Debian package
 * {@code faketime}) cannot take a lock whose lease has not run out on the database's clock:
 * expiry is judged by the database, never by the client.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SkewedClockJvmTest {

    @Test
    void aClientADayAheadCannotStealAnUnexpiredLockOnPostgres() throws Exception {
        check(TestDatabases.postgresServer().jdbcUrl(), "postgres", LockClient.builder(
                JdbcLockBackend.builder(TestDatabases.postgres()).createTableIfMissing(true).build()).build());
    }

    @Test
    void aClientADayAheadCannotStealAnUnexpiredLockOnMariaDb() throws Exception {
        check(TestDatabases.mariadbServer().jdbcUrl(), "root", LockClient.builder(
                JdbcLockBackend.builder(TestDatabases.mariadb()).createTableIfMissing(true).build()).build());
    }

    private void check(String url, String user, LockClient locks) throws Exception {
        String key = "skew:" + UUID.randomUUID();
        try (locks) {
            try (LockLease held = locks.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)))) {
                List<String> out = runSkewed(url, user, key);
                long skew = Long.parseLong(out.get(0).substring("NOW ".length())) - System.currentTimeMillis();
                assertThat(skew).as("the second JVM's clock is ahead by").isGreaterThan(Duration.ofHours(23).toMillis());
                assertThat(out).as("a day-ahead client sees the 60 s lease as still held").contains("BUSY");
                assertThat(held.isValid()).isTrue();
            }
            assertThat(runSkewed(url, user, key)).as("and takes it once released").contains("FREE");
        }
    }

    private static List<String> runSkewed(String url, String user, String key) throws Exception {
        String faketime = Binaries.require("faketime", "faketime").toString();
        List<String> command = new ArrayList<>(List.of(faketime, "-f", "+1d",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SkewedClockClient.class.getName(), url, user, key));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // Only the wall clock is skewed: a faked monotonic clock would break the JVM's own timeouts.
        builder.environment().putAll(Map.of("DONT_FAKE_MONOTONIC", "1"));
        Process process = builder.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        }
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        assertThat(process.exitValue()).as("skewed JVM exit code; output %s", lines).isZero();
        return lines.stream().filter(l -> l.startsWith("NOW ") || l.equals("BUSY") || l.equals("FREE")).toList();
    }
}
