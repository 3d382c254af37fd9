package dev.mortise.lock.architecture;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * An application module compiled with {@link javax.tools.JavaCompiler} on the module path: what a
 * user on the module path can compile against a Mortise module. Stateless; thread-safe.
 */
final class ConsumerModule {

    static final String NAME = "mortise.consumer";

    /** What javac answered: its exit status and its messages. */
    record Result(int status, String messages) {

        boolean compiled() {
            return status == 0;
        }

        /** The messages' error lines (those that start with a source file and say "error:"). */
        List<String> errors() {
            return messages.lines().filter(l -> l.contains("error:")).toList();
        }
    }

    private ConsumerModule() {
    }

    /**
     * The sources of a module {@value #NAME} that requires {@code required} and imports every one of
     * {@code types} (binary names of top-level types), each used as a field: file path → text.
     */
    static Map<String, String> importing(String required, List<String> types) {
        StringBuilder imports = new StringBuilder();
        StringBuilder fields = new StringBuilder();
        Set<String> simpleNames = new HashSet<>();
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            // A type whose simple name is already imported is named in full only.
            if (simpleNames.add(type.substring(type.lastIndexOf('.') + 1))) {
                imports.append("import ").append(type).append(";\n");
            }
            fields.append("    ").append(type).append(" use").append(i).append(";\n");
        }
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put("module-info.java", "module " + NAME + " { requires " + required + "; }\n");
        sources.put("consumer/Uses.java", "package consumer;\n\n" + imports
                + "\n@SuppressWarnings(\"rawtypes\")\nclass Uses {\n" + fields + "}\n");
        return sources;
    }

    /**
     * Compiles {@code sources} (file path under the source root → text, a {@code module-info.java}
     * among them) into {@code dir/classes}, against {@code modulePath}; the sources are written
     * under {@code dir/src}.
     */
    static Result compile(Path dir, Map<String, String> sources, List<Path> modulePath) {
        try {
            List<String> args = new ArrayList<>(List.of("-d", dir.resolve("classes").toString(),
                    "-proc:none", "-Xlint:none", "--module-path",
                    modulePath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator))));
            for (Map.Entry<String, String> source : sources.entrySet()) {
                Path file = dir.resolve("src").resolve(source.getKey());
                Files.createDirectories(file.getParent());
                args.add(Files.writeString(file, source.getValue()).toString());
            }
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            ByteArrayOutputStream messages = new ByteArrayOutputStream();
            int status = javac.run(null, messages, messages, args.toArray(String[]::new));
            return new Result(status, messages.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the consumer module's sources in " + dir, e);
        }
    }

    /** {@link #compile} in a temporary directory, deleted afterwards. */
    static Result compileAndForget(Map<String, String> sources, List<Path> modulePath) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("mortise-consumer");
            return compile(dir, sources, modulePath);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the consumer module", e);
        } finally {
            if (dir != null) {
                delete(dir);
            }
        }
    }

    private static void delete(Path dir) {
        try (var walk = Files.walk(dir)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // a temporary directory left behind is no failure of the check
        }
    }
}
