package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.DataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two JVMs on one H2 file in {@code AUTO_SERVER} mode: the first to open it serves it, the
 * second ({@link SecondJvm}, a real process started here) connects to that server. The
 * second must see a lock the first holds, and both must exclude each other while they
 * increment a shared counter without any other synchronisation.
 */
class H2FileTwoJvmTest {

    private static final int ROUNDS = 20;

    @TempDir
    Path dir;

    @Test
    void twoJvmsShareLocksThroughOneH2File() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("locks") + ";AUTO_SERVER=TRUE";
        String key = "two-jvm:" + UUID.randomUUID();
        try (HikariDataSource pool = TestDatabases.pool("first-jvm", url, "sa", 4);
             LockClient locks = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     // the plain counter, as in SecondJvm: no gaps between tokens means no grant unaccounted for
                     .fencingTokens(FencingTokens.COUNTER).build())
                     .defaultLease(Duration.ofSeconds(2)).build()) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)");
                s.execute("INSERT INTO counter VALUES (1, 0)");
            }

            try (LockLease held = locks.acquire(key, Duration.ofSeconds(5))) {
                assertThat(held.isValid()).isTrue();
                assertThat(runSecondJvm(url, "probe", key)).as("the second JVM sees the first's lock").contains("BUSY");
            }
            assertThat(runSecondJvm(url, "probe", key)).as("and sees it released").contains("FREE");

            Process second = start(url, "rounds", key, Integer.toString(ROUNDS));
            BufferedReader secondOut = new BufferedReader(new InputStreamReader(second.getInputStream(),
                    StandardCharsets.UTF_8));
            List<String> output = new ArrayList<>();
            String line;
            while ((line = secondOut.readLine()) != null && !line.equals("READY")) {
                output.add(line); // wait until the second JVM is about to lock, so the two really contend
            }
            List<Long> mine = new ArrayList<>();
            for (int i = 0; i < ROUNDS; i++) {
                try (LockLease lease = locks.acquire(key, Duration.ofSeconds(60))) {
                    incrementSlowly(pool);
                    mine.add(lease.fencingToken());
                }
                Thread.sleep(20); // give the other JVM a chance: the lock is not fair
            }
            output.addAll(readAll(second, secondOut));
            List<Long> theirs = output.stream().filter(l -> l.startsWith("TOKEN "))
                    .map(l -> Long.parseLong(l.substring(6))).toList();
            assertThat(output).as("second JVM output").contains("DONE");
            assertThat(theirs).hasSize(ROUNDS);
            assertThat(counter(pool)).as("increments (a lost one means two holders at once)").isEqualTo(2 * ROUNDS);
            assertThat(mine).isSorted();
            assertThat(theirs).isSorted();
            List<Long> all = new ArrayList<>(mine);
            all.addAll(theirs);
            assertThat(all).doesNotHaveDuplicates();
            assertThat(Collections.max(all) - Collections.min(all)).isEqualTo(2 * ROUNDS - 1);
            assertThat(handOvers(mine, theirs)).as("times the lock passed between the JVMs; mine %s, theirs %s", mine, theirs)
                    .isGreaterThanOrEqualTo(2);
        }
    }

    /** How often, in token order, the holder switched from one JVM to the other. */
    private static int handOvers(List<Long> mine, List<Long> theirs) {
        List<Long> all = new ArrayList<>(mine);
        all.addAll(theirs);
        Collections.sort(all);
        int switches = 0;
        for (int i = 1; i < all.size(); i++) {
            if (mine.contains(all.get(i)) != mine.contains(all.get(i - 1))) {
                switches++;
            }
        }
        return switches;
    }

    /** Read, pause, write: loses updates unless the lock excludes the other JVM. */
    static void incrementSlowly(DataSource dataSource) throws SQLException, InterruptedException {
        int n = counter(dataSource);
        Thread.sleep(10);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE counter SET n = " + (n + 1) + " WHERE id = 1");
        }
    }

    static int counter(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT n FROM counter WHERE id = 1")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static List<String> runSecondJvm(String... args) throws Exception {
        Process process = start(args);
        return readAll(process, new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)));
    }

    private static Process start(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SecondJvm.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static List<String> readAll(Process process, BufferedReader output) throws Exception {
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = output) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        }
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("second JVM did not finish; output: " + lines);
        }
        assertThat(process.exitValue()).as("second JVM exit code; output: %s", lines).isZero();
        return lines;
    }
}
