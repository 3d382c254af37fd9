package dev.mortise.lock.vthreads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a JDK 21 or later for the child JVM: {@code MORTISE_JDK21_HOME} if set, else the JVM
 * running the build if it is one, else the newest under {@code /usr/lib/jvm} (by its
 * {@code release} file). The build's baseline stays Java 17.
 */
final class NewerJdk {

    private static final Pattern VERSION = Pattern.compile("JAVA_VERSION=\"(\\d+)");

    private NewerJdk() {
    }

    /** The {@code java} launcher of a JDK 21+, or empty if this machine has none. */
    static Optional<Path> java() {
        String given = System.getenv("MORTISE_JDK21_HOME");
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given, "bin", "java"));
        }
        if (Runtime.version().feature() >= 21) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        List<Path> homes = new ArrayList<>();
        try (Stream<Path> listed = Files.list(jvms)) {
            listed.filter(home -> feature(home) >= 21 && Files.isExecutable(home.resolve("bin/java")))
                    .forEach(homes::add);
        } catch (IOException e) {
            return Optional.empty();
        }
        return homes.stream().max((a, b) -> Integer.compare(feature(a), feature(b))).map(h -> h.resolve("bin/java"));
    }

    /** The feature version a JDK's {@code release} file states, or 0. */
    static int feature(Path home) {
        try {
            Matcher m = VERSION.matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
