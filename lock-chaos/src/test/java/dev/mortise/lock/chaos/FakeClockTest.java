package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The jumping clocks of the clock faults, on real processes: a redis-server under the clock
 * shim and a JVM under libfaketime follow the offset file at once; their monotonic clocks
 * do not move.
 */
class FakeClockTest {

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
