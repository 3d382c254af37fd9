package dev.mortise.lock.architecture;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A tiny application module, compiled with {@link javax.tools.JavaCompiler} on the module path,
 * that {@code requires} one module and imports some of its types: what a user on the module path
 * can compile against. Each call compiles in a new temporary directory. Stateless; thread-safe.
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
     * Compiles a module that requires {@code required} and imports every one of {@code types}
     * (binary names of top-level types), each used as a field, against {@code modulePath}.
     */
    static Result compile(String required, List<String> types, List<Path> modulePath) {
        try {
            Path dir = Files.createTempDirectory("mortise-consumer");
            Path sources = Files.createDirectories(dir.resolve("src/consumer"));
            Path moduleInfo = Files.writeString(dir.resolve("src/module-info.java"),
                    "module " + NAME + " { requires " + required + "; }\n");
            Path uses = Files.writeString(sources.resolve("Uses.java"), source(types));
            List<String> args = new ArrayList<>(List.of("-d", dir.resolve("classes").toString(),
                    "-proc:none", "-Xlint:none", "--module-path",
                    modulePath.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator))));
            args.add(moduleInfo.toString());
            args.add(uses.toString());
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            ByteArrayOutputStream messages = new ByteArrayOutputStream();
            int status = javac.run(null, messages, messages, args.toArray(String[]::new));
            return new Result(status, messages.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the consumer module's sources", e);
        }
    }

    /** One import per type (a type whose simple name is taken is named in full only), one field per type. */
    private static String source(List<String> types) {
        StringBuilder imports = new StringBuilder();
        StringBuilder fields = new StringBuilder();
        Set<String> simpleNames = new HashSet<>();
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            if (simpleNames.add(type.substring(type.lastIndexOf('.') + 1))) {
                imports.append("import ").append(type).append(";\n");
            }
            fields.append("    ").append(type).append(" use").append(i).append(";\n");
        }
        return "package consumer;\n\n" + imports + "\n@SuppressWarnings(\"rawtypes\")\nclass Uses {\n" + fields + "}\n";
    }
}
