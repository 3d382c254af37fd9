package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The jumping clocks of the clock faults, on real processes: a redis-server under the clock
 * shim, a JVM under libfaketime, the ZooKeeper server JVM and the etcd (under the ptrace clock
 * tracer) of a server-clock-jump run follow the offset file at once; their monotonic clocks do
 * not move.
 */
class FakeClockTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void theOffsetFileHoldsWhatLibfaketimeAndTheShimRead() {
        try (FakeClock.OffsetFile clock = FakeClock.OffsetFile.create()) {
            assertThat(clock.offsetMillis()).isZero();
            clock.set(-180_250);
            assertThat(clock.offsetMillis()).isEqualTo(-180_250);
            assertThat(readQuietly(clock)).isEqualTo("-180.250s\n");
            clock.set(30_000);
            assertThat(readQuietly(clock)).isEqualTo("+30.000s\n");
        }
    }

    private static String readQuietly(FakeClock.OffsetFile clock) {
        try {
            return Files.readString(clock.path());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Redis's {@code TIME} in seconds. */
    private static long redisSeconds(RedisServer redis) throws Exception {
        // The launcher's helper returns a reply's first line: an integer (":123"), not TIME's array.
        return Long.parseLong(redis.command("EVAL", "return tonumber(redis.call('TIME')[1])", "0").substring(1));
    }

    @Test
    void aRedisServerUnderTheShimJumpsAndExpiresKeysEarly() throws Exception {
        try (BackendServer server = BackendServer.start("redis", Fault.SERVER_CLOCK_JUMP)) {
            RedisServer redis = redisOf(server);
            long now = System.currentTimeMillis() / 1000;
            assertThat(redisSeconds(redis)).isBetween(now - 5, now + 5);
            assertThat(redis.command("SET", "k", "v", "PX", "10000")).isEqualTo("+OK");

            server.jumpClock(60_000);
            // The shim re-reads the file within 10 ms: the next commands see the jump.
            Thread.sleep(50);
            assertThat(redisSeconds(redis)).isBetween(now + 55, now + 65);
            assertThat(redis.command("GET", "k")).as("expired by the jump").isEqualTo("$-1");

            server.jumpClock(-60_000);
            Thread.sleep(50);
            assertThat(redisSeconds(redis)).isBetween(now - 65, now - 55);
        }
    }

    /**
     * The ZooKeeper server of a server-clock-jump run is a JVM of its own under libfaketime: a
     * znode written after a jump of -60 s carries an {@code mtime} a minute behind the machine's
     * clock, and one written after the jump back the machine's time again. The server is the one the run's checks talk to: its endpoint is the
     * connect string, and the orphan count ({@link BackendServer#heldLocks()}) sees lock nodes.
     */
    @Test
    void aZooKeeperServerInItsOwnJvmFollowsTheOffsetFile() throws Exception {
        try (BackendServer server = BackendServer.start("zookeeper", Fault.SERVER_CLOCK_JUMP);
             org.apache.curator.framework.CuratorFramework client = org.apache.curator.framework
                     .CuratorFrameworkFactory.newClient(server.target(),
                             new org.apache.curator.retry.RetryNTimes(20, 200))) {
            assertThat(server.server()).isInstanceOf(ZooKeeperJvm.class);
            assertThat(((ZooKeeperJvm) server.server()).isRunning()).isTrue();
            assertThat(server.description()).contains("own JVM", "libfaketime");
            client.start();
            client.create().creatingParentsIfNeeded().forPath("/mortise/locks/k/holder", new byte[0]);
            assertThat(server.heldLocks()).as("lock nodes, counted as in every zookeeper run").isEqualTo(1);
            assertThat(mtimeLag(client)).as("before any jump").isBetween(-5_000L, 5_000L);

            server.jumpClock(-60_000);
            // libfaketime re-reads the file at most every second: write until a write shows the jump.
            assertThat(lagOnceSettled(client, -60_000)).as("mtime behind the machine's clock by the jump")
                    .isBetween(-65_000L, -55_000L);
            server.jumpClock(0);
            assertThat(lagOnceSettled(client, 0)).as("and back").isBetween(-5_000L, 5_000L);
        }
    }

    /** Writes the node and returns its new mtime minus the machine's time of the write, in ms. */
    private static long mtimeLag(org.apache.curator.framework.CuratorFramework client) throws Exception {
        long before = System.currentTimeMillis();
        org.apache.zookeeper.data.Stat stat = client.setData().forPath("/mortise/locks/k/holder", new byte[0]);
        long after = System.currentTimeMillis();
        return stat.getMtime() - (before + after) / 2;
    }

    /** {@link #mtimeLag} once it is within 5 s of {@code expected}, trying for up to 30 s; the last one otherwise. */
    private static long lagOnceSettled(org.apache.curator.framework.CuratorFramework client, long expected)
            throws Exception {
        return onceSettled(() -> mtimeLag(client), expected);
    }

    /** A server's clock lag, read again; throws what reading it throws. */
    private interface Lag {
        long read() throws Exception;
    }

    /** {@code lag} once it is within 5 s of {@code expected}, trying for up to 30 s; the last reading otherwise. */
    private static long onceSettled(Lag lag, long expected) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long last = lag.read();
        while (Math.abs(last - expected) > 5_000 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            last = lag.read();
        }
        return last;
    }

    /**
     * The etcd of a server-clock-jump run runs under the clock tracer: the {@code Date} header of
     * its HTTP answers (Go's {@code time.Now()}, read through a system call once the tracer hid the
     * vDSO) is a minute behind the machine's clock after a jump of -60 s, and back after the jump
     * back. Under the moved clock it serves as usual: a put and a get, a lease granted, kept
     * alive, and still alive after the clock jumps a minute forward (the lessor times leases on
     * Go's monotonic clock, which the tracer leaves alone).
     */
    @Test
    void anEtcdUnderTheClockTracerFollowsTheOffsetFileAndServesAsUsual() throws Exception {
        try (BackendServer server = BackendServer.start("etcd", Fault.SERVER_CLOCK_JUMP);
             io.etcd.jetcd.Client client = io.etcd.jetcd.Client.builder().endpoints(server.target().split(","))
                     .build()) {
            assertThat(server.server()).isInstanceOf(EtcdServer.class);
            assertThat(server.description()).contains("one member", "ptrace");
            String endpoint = "http://" + server.endpoints().get(0);
            assertThat(dateLag(endpoint)).as("before any jump").isBetween(-5_000L, 5_000L);

            server.jumpClock(-60_000);
            assertThat(dateLagOnceSettled(endpoint, -60_000)).as("Date behind the machine's clock by the jump")
                    .isBetween(-65_000L, -55_000L);
            io.etcd.jetcd.ByteSequence key = bytes("mortise/clock-test");
            client.getKVClient().put(key, bytes("v")).get(10, TimeUnit.SECONDS);
            assertThat(client.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs())
                    .extracting(kv -> kv.getValue().toString(StandardCharsets.UTF_8)).containsExactly("v");
            long lease = client.getLeaseClient().grant(10).get(10, TimeUnit.SECONDS).getID();
            assertThat(client.getLeaseClient().keepAliveOnce(lease).get(10, TimeUnit.SECONDS).getTTL())
                    .as("kept alive").isPositive();

            server.jumpClock(60_000);
            assertThat(dateLagOnceSettled(endpoint, 60_000)).as("Date ahead by the jump")
                    .isBetween(55_000L, 65_000L);
            assertThat(client.getLeaseClient().timeToLive(lease, io.etcd.jetcd.options.LeaseOption.DEFAULT)
                    .get(10, TimeUnit.SECONDS).getTTL()).as("a 10 s lease outlives a jump of a minute forward")
                    .isPositive();

            server.jumpClock(0);
            assertThat(dateLagOnceSettled(endpoint, 0)).as("and back").isBetween(-5_000L, 5_000L);
            assertThat(client.getLeaseClient().keepAliveOnce(lease).get(10, TimeUnit.SECONDS).getTTL())
                    .as("kept alive after the jumps").isPositive();
        }
    }

    private static io.etcd.jetcd.ByteSequence bytes(String text) {
        return io.etcd.jetcd.ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** The server's {@code Date} on {@code /health} minus the machine's time of the request, in ms (±1 s: whole seconds). */
    private static long dateLag(String endpoint) throws Exception {
        long before = System.currentTimeMillis();
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint + "/health"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        long after = System.currentTimeMillis();
        String date = response.headers().firstValue("Date").orElseThrow(
                () -> new AssertionError("no Date header from " + endpoint + "/health"));
        long server = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        return server - (before + after) / 2;
    }

    /** {@link #dateLag} once it is within 5 s of {@code expected}, trying for up to 30 s; the last one otherwise. */
    private static long dateLagOnceSettled(String endpoint, long expected) throws Exception {
        return onceSettled(() -> dateLag(endpoint), expected);
    }

    private static RedisServer redisOf(BackendServer server) {
        return (RedisServer) server.server();
    }

    /** Prints the wall clock minus the monotonic clock (ms) every 50 ms, until killed. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            while (true) {
                System.out.println(System.currentTimeMillis() - System.nanoTime() / 1_000_000);
                Thread.sleep(50);
            }
        }
    }

    @Test
    void aJvmUnderLibfaketimeJumpsItsWallClockAndNotItsMonotonicClock() throws Exception {
        try (FakeClock.OffsetFile clock = FakeClock.OffsetFile.create()) {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx32m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    Probe.class.getName()));
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(clock.libfaketimeEnvironment());
            Process probe = builder.start();
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
                long base = Long.parseLong(out.readLine());
                clock.set(180_000);
                // libfaketime re-reads the file at most every second: wait for the jump, up to 30 s.
                long jumped = base;
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (Math.abs(jumped - base - 180_000) > 1000 && System.nanoTime() < deadline) {
                    jumped = Long.parseLong(out.readLine());
                }
                assertThat(jumped - base).as("wall minus monotonic moved by the jump alone").isBetween(179_000L,
                        181_000L);
            } finally {
                probe.destroyForcibly().waitFor();
            }
        }
    }
}
