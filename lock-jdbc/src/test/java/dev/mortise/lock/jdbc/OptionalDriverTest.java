package dev.mortise.lock.jdbc;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The PostgreSQL driver is optional: without it on the class path, the other dialects work. */
class OptionalDriverTest {

    @Test
    void h2WorksWithoutThePostgresDriverOnTheClassPath() throws Exception {
        String full = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String withoutDriver = Arrays.stream(full.split(File.pathSeparator))
                .filter(entry -> !entry.contains(File.separator + "org" + File.separator + "postgresql" + File.separator))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(withoutDriver).as("the PostgreSQL driver was found and left out").isNotEqualTo(full);
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", withoutDriver, WithoutPostgresDriver.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(output).contains("DRIVER ABSENT").containsPattern("LOCKED [0-9]+ POLL");
        assertThat(process.exitValue()).as(output).isZero();
    }
}
