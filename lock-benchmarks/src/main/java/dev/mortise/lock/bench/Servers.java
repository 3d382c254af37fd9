package dev.mortise.lock.bench;

import dev.mortise.lock.bench.common.JavaProcess;
import dev.mortise.lock.tck.server.Binaries;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.ServerProcess;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Starts the real server of one backend group on a free loopback port (the lock-tck
 * launchers; ZooKeeper in a child JVM) and stops it when closed.
 */
public final class Servers implements AutoCloseable {

    private final AutoCloseable server;
    private final String endpoint;
    private final String version;

    private Servers(AutoCloseable server, String endpoint, String version) {
        this.server = server;
        this.endpoint = endpoint;
        this.version = version;
    }

    /** The server for {@code group}: {@code redis}, {@code etcd}, {@code zookeeper}, {@code postgres}, {@code mariadb}, {@code local}. */
    public static Servers start(String group) throws Exception {
        return switch (group) {
            case "redis" -> {
                RedisServer redis = started(new RedisServer());
                yield new Servers(redis, redis.address(), commandVersion(Binaries.require("redis-server", "redis-server").toString(), "--version"));
            }
            case "etcd" -> {
                EtcdServer etcd = started(new EtcdServer());
                yield new Servers(etcd, etcd.endpoint(), commandVersion(Binaries.require("etcd", "etcd-server").toString(), "--version"));
            }
            case "postgres" -> {
                PostgresServer postgres = started(new PostgresServer());
                yield new Servers(postgres, postgres.jdbcUrl(), "PostgreSQL " + postgresMajorVersion());
            }
            case "mariadb" -> {
                MariaDbServer mariadb = started(new MariaDbServer());
                yield new Servers(mariadb, mariadb.jdbcUrl(), commandVersion(Binaries.require("mariadbd", "mariadb-server").toString(), "--version"));
            }
            case "zookeeper" -> zookeeper();
            case "local" -> new Servers(() -> { }, "in-process", "in-process");
            default -> throw new IllegalArgumentException("unknown backend group " + group);
        };
    }

    private static <S extends ServerProcess> S started(S server) {
        try {
            server.start();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static Servers zookeeper() throws Exception {
        Process process = JavaProcess.start(ZookeeperServerMain.class, List.of("-Xmx256m"), List.of());
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY ")) {
            // skip the server's own output
        }
        if (line == null) {
            process.destroyForcibly();
            throw new IllegalStateException("the ZooKeeper child JVM exited before it was ready");
        }
        String version = org.apache.zookeeper.Version.getFullVersion();
        return new Servers(() -> {
            process.getOutputStream().close();
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }, line.substring("READY ".length()), "ZooKeeper " + version.split("[ -]")[0] + " (curator-test, own JVM)");
    }

    /** The first line a binary prints for {@code --version}. */
    static String commandVersion(String binary, String flag) {
        try {
            Process process = new ProcessBuilder(binary, flag).redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor();
            return text.lines().findFirst().orElse(binary);
        } catch (Exception e) {
            return binary + " (version unknown)";
        }
    }

    /** The installed major version, from the Debian layout {@code /usr/lib/postgresql/<major>}. */
    private static String postgresMajorVersion() {
        String[] versions = new java.io.File("/usr/lib/postgresql").list();
        return versions == null || versions.length == 0 ? "(version unknown)" : String.join(", ", versions);
    }

    /**
     * Restarts the server if it died during the run (same port and data), and reports it with
     * the end of its log: a scenario that ran against a dead server must not pass silently.
     */
    public void ensureRunning(dev.mortise.lock.bench.run.Notes notes) {
        if (server instanceof ServerProcess process && !process.isRunning()) {
            String tail = process.logTail().lines().reduce((a, b) -> b).orElse("(empty log)");
            notes.finding(process + " exited during the run (last log line: " + tail.strip() + "); restarted it");
            process.restart();
        }
    }

    public String endpoint() {
        return endpoint;
    }

    /** The server's name and version for the report. */
    public String version() {
        return version;
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
