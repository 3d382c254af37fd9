package dev.mortise.lock.tck.server;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Finds server binaries on PATH, in sbin directories and in versioned PostgreSQL directories. */
public final class Binaries {

    private Binaries() {
    }

    /**
     * The path of {@code name}.
     *
     * @throws MissingServerException naming {@code debianPackage} if it is nowhere
     */
    public static Path require(String name, String debianPackage) {
        List<Path> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                dirs.add(Path.of(dir));
            }
        }
        dirs.add(Path.of("/usr/sbin"));
        dirs.add(Path.of("/usr/local/sbin"));
        dirs.add(Path.of("/sbin"));
        dirs.addAll(postgresBinDirs());
        for (Path dir : dirs) {
            Path candidate = dir.resolve(name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new MissingServerException(name, debianPackage);
    }

    /** /usr/lib/postgresql/N/bin, newest first. */
    private static List<Path> postgresBinDirs() {
        List<Path> result = new ArrayList<>();
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> versions = Files.newDirectoryStream(root)) {
                for (Path version : versions) {
                    result.add(version.resolve("bin"));
                }
            } catch (IOException ignored) {
                // nothing there to use
            }
        }
        result.sort(Comparator.comparing((Path p) -> versionOf(p)).reversed());
        return result;
    }

    private static int versionOf(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
