package dev.mortise.lock.redis;

import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19: Redisson is not needed on the Lettuce driver. In a JVM whose class path lacks
 * org.redisson, {@link WithoutRedisson} builds and locks through both builders with the Lettuce
 * driver (its own client and a supplied one), and the Redisson driver fails naming the fix.
 */
class OptionalRedissonTest {

    @Test
    void lettuceDriverWorksWithoutRedissonOnTheClassPath() throws Exception {
        String full = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String withoutRedisson = Arrays.stream(full.split(File.pathSeparator))
                .filter(entry -> !entry.contains(File.separator + "org" + File.separator + "redisson" + File.separator))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(withoutRedisson).as("Redisson was found and left out").isNotEqualTo(full);
        try (RedisServer a = new RedisServer(); RedisServer b = new RedisServer(); RedisServer c = new RedisServer()) {
            a.start();
            b.start();
            c.start();
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-cp", withoutRedisson, WithoutRedisson.class.getName(),
                    a.address(), b.address(), c.address())
                    .redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(output).isZero();
            assertThat(output).contains("REDISSON ABSENT")
                    .containsPattern("OWN LOCKED [0-9]+")
                    .containsPattern("SUPPLIED LOCKED [0-9]+")
                    .containsPattern("REDLOCK LOCKED [0-9]+")
                    .contains("DEFAULT DRIVER REFUSED: The Redisson driver needs org.redisson:redisson on the classpath")
                    .contains("REDLOCK DEFAULT DRIVER REFUSED: The Redisson driver needs org.redisson:redisson");
        }
    }
}
