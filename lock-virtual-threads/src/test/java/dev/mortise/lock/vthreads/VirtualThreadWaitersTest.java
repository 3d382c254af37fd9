package dev.mortise.lock.vthreads;

import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many virtual threads wait for Mortise locks on every backend, in a JDK 21+ child JVM
 * ({@link VirtualWaiters}): all of them finish, no two are inside one key at once, and JFR sees
 * no virtual thread pinned in Mortise's own code after a warm-up round (a pin inside a library
 * Mortise called, such as H2's engine, is printed and counted apart) (class loading pins
 * once; the child prints those pins too). Two rounds per backend, in one child: 200 threads on
 * one key, and 400 threads over 40 keys, each over four lock clients ({@code -Dvthreads.shapes=2000x1,10000x100}
 * measures others: threads x keys, comma-separated). A machine without a JDK 21+
 * fails here with the fix in the message (docs/virtual-threads.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VirtualThreadWaitersTest {

    private final Map<String, AutoCloseable> servers = new HashMap<>();
    private Path java;

    @BeforeAll
    void findJdk() {
        java = NewerJdk.java().orElseThrow(() -> new IllegalStateException("No JDK 21 or later on this machine: "
                + "the virtual-thread runs need one beside the Java 17 build. Install one under /usr/lib/jvm "
                + "(e.g. Temurin 21 or 25) or point MORTISE_JDK21_HOME at it (docs/virtual-threads.md)."));
    }

    @AfterAll
    void stopServers() throws Exception {
        for (AutoCloseable server : servers.values()) {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "redis/lettuce", "etcd", "zookeeper", "postgres", "mariadb", "h2"})
    void everyVirtualWaiterFinishesAloneInItsKeyAndNothingPinsInMortiseCode(String label) throws Exception {
        String[] shapes = System.getProperty("vthreads.shapes", "200x1,400x40").split(",");
        List<String> out = runChild(label, target(label), shapes);
        out.forEach(System.out::println); // the figures, in this class's -output.txt
        List<Map<String, String>> rounds = out.stream().filter(l -> l.startsWith("VTHREADS ")).map(l -> fields(l))
                .toList();
        assertThat(rounds).as("one round per shape %s:%n%s", List.of(shapes), String.join("\n", out))
                .hasSize(shapes.length);
        for (Map<String, String> round : rounds) {
            assertThat(round).as(String.join("\n", out))
                    .containsEntry("virtual", "true")
                    .containsEntry("finished", round.get("threads"))
                    .containsEntry("overlaps", "0")
                    .containsEntry("failures", "0")
                    .containsEntry("pinnedInMortiseCode", "0");
        }
    }

    private List<String> runChild(String label, String target, String... shapes) throws Exception {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), VirtualWaiters.class.getName(), label, target, "4"));
        command.addAll(List.of(shapes));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> readLines(child, lines), "vthreads-child-output");
        reader.start();
        if (!child.waitFor(5, TimeUnit.MINUTES)) {
            child.destroyForcibly();
        }
        reader.join(10_000);
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    private static void readLines(Process child, List<String> lines) {
        try (var reader = child.inputReader(StandardCharsets.UTF_8)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                }
            }
        } catch (IOException e) {
            synchronized (lines) {
                lines.add("(reading the child's output failed: " + e + ")");
            }
        }
    }

    private static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String part : line.substring("VTHREADS ".length()).split(" ")) {
            int eq = part.indexOf('=');
            fields.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return fields;
    }

    /** The running server for {@code label}'s backend, started on first use, as its target string. */
    private String target(String label) throws Exception {
        switch (label) {
            case "redis", "redis/lettuce" -> {
                RedisServer redis = (RedisServer) servers.computeIfAbsent("redis", k -> start(new RedisServer()));
                return redis.address();
            }
            case "etcd" -> {
                return ((EtcdServer) servers.computeIfAbsent("etcd", k -> start(new EtcdServer()))).endpoint();
            }
            case "zookeeper" -> {
                if (!servers.containsKey("zookeeper")) {
                    servers.put("zookeeper", new TestingServer(true));
                }
                return ((TestingServer) servers.get("zookeeper")).getConnectString();
            }
            case "postgres" -> {
                PostgresServer pg = (PostgresServer) servers.computeIfAbsent("postgres", k -> start(new PostgresServer()));
                return pg.jdbcUrl() + " " + pg.user();
            }
            case "mariadb" -> {
                MariaDbServer db = (MariaDbServer) servers.computeIfAbsent("mariadb", k -> start(new MariaDbServer()));
                return db.jdbcUrl() + " " + db.user();
            }
            default -> {
                return "";
            }
        }
    }

    private static AutoCloseable start(dev.mortise.lock.tck.server.ServerProcess server) {
        server.start();
        return server;
    }
}
