package dev.mortise.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A fresh directory for one test context's H2 file database, so runs never share data. */
final class TempDataDir {

    private TempDataDir() {
    }

    static String create() {
        try {
            // Under target/, so "mvn clean" removes the databases the tests leave behind.
            Path parent = Files.createDirectories(Path.of("target", "test-data").toAbsolutePath());
            return Files.createTempDirectory(parent, "h2-").toString();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temp directory for the test database", e);
        }
    }
}
