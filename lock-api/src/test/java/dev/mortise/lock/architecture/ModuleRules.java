package dev.mortise.lock.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The module rules of one artifact, checked on its compiled {@code module-info.class}: it exports
 * its API and SPI packages and nothing else. Any module's tests can call it with a class of the
 * module:
 *
 * <pre>{@code
 * @Test
 * void exportsItsApiAndSpiOnly() {
 *     ModuleRules rules = ModuleRules.of(RedisLockBackend.class);
 *     rules.assertExportsApiAndSpiOnly(Path.of("src/main/java"));
 *     rules.assertConsumerSeesApiOnly();
 * }
 * }</pre>
 *
 * <p>A package is internal if one of its segments is {@code internal} (as for {@link PackageRules});
 * its {@code package-info.java} must say so. Every other package is API or SPI and its
 * {@code package-info.java} must say which. {@link #assertExportsApiAndSpiOnly} reads the
 * descriptor; {@link #assertConsumerSeesApiOnly} compiles a consumer module against it, which is
 * what a user on the module path meets ({@link ModuleApplication} runs one). Not thread-safe;
 * build one per test.
 */
public final class ModuleRules {

    private final Path classes;
    private final ModuleDescriptor descriptor;
    /** This module's packages → their public top-level types (binary names), sorted. */
    private final Map<String, List<String>> publicTypes;

    private ModuleRules(Path classes, ModuleDescriptor descriptor, Map<String, List<String>> publicTypes) {
        this.classes = classes;
        this.descriptor = descriptor;
        this.publicTypes = publicTypes;
    }

    /** The rules of the module whose classes (directory or jar) {@code anchor} was loaded from. */
    public static ModuleRules of(Class<?> anchor) {
        try {
            return of(Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot locate the classes of " + anchor, e);
        }
    }

    /**
     * The rules of the module in {@code classes} (a directory of class files or a jar).
     *
     * @throws IllegalArgumentException if it has no {@code module-info.class}
     */
    public static ModuleRules of(Path classes) {
        try {
            if (Files.isDirectory(classes)) {
                return read(classes, classes);
            }
            try (FileSystem jar = FileSystems.newFileSystem(classes)) {
                return read(classes, jar.getPath("/"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes in " + classes, e);
        }
    }

    private static ModuleRules read(Path location, Path base) throws IOException {
        Path moduleInfo = base.resolve("module-info.class");
        if (!Files.exists(moduleInfo)) {
            throw new IllegalArgumentException(location + " has no module-info.class");
        }
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(moduleInfo)) {
            descriptor = ModuleDescriptor.read(in);
        }
        Map<String, List<String>> types = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(base)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
        for (Path file : files) {
            String relative = base.relativize(file).toString().replace('\\', '/');
            String binary = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
            String pkg = ClassReferences.packageOf(binary);
            if (pkg.isEmpty() || binary.contains("$") || binary.endsWith(".package-info")) {
                continue;
            }
            List<String> publicOnes = types.computeIfAbsent(pkg, k -> new ArrayList<>());
            try (InputStream in = Files.newInputStream(file)) {
                if (ClassReferences.isPublic(in)) {
                    publicOnes.add(binary);
                }
            }
        }
        return new ModuleRules(location, descriptor, types);
    }

    /** The module's name. */
    public String name() {
        return descriptor.name();
    }

    /** Where the module's classes are (a directory or a jar). */
    Path classes() {
        return classes;
    }

    private static boolean isInternal(String pkg) {
        return Arrays.asList(pkg.split("\\.")).contains("internal");
    }

    /**
     * Every package of the sources under {@code sourceRoot} that is not internal is exported to
     * every module, and its {@code package-info.java} says it is API or SPI; no internal package
     * is exported (not even to named modules) or open to every module, and each says it is
     * internal; the module is not {@code open}.
     */
    public void assertExportsApiAndSpiOnly(Path sourceRoot) {
        Map<String, ModuleDescriptor.Exports> exports = new TreeMap<>();
        descriptor.exports().forEach(e -> exports.put(e.source(), e));
        Map<String, ModuleDescriptor.Opens> opens = new TreeMap<>();
        descriptor.opens().forEach(o -> opens.put(o.source(), o));
        List<String> violations = new ArrayList<>();
        if (descriptor.isOpen()) {
            violations.add("module " + name() + " is open: every package, internal ones too, is open to every module");
        }
        for (Map.Entry<String, Optional<String>> source : sourcePackages(sourceRoot).entrySet()) {
            String pkg = source.getKey();
            String description = source.getValue().orElse(null);
            ModuleDescriptor.Exports export = exports.get(pkg);
            if (description == null) {
                violations.add(pkg + " has no package-info.java");
            } else if (isInternal(pkg) && !description.matches("(?s).*\\b[Ii]nternal\\b.*")) {
                violations.add(pkg + " is named internal but its package-info.java does not say it is internal");
            } else if (!isInternal(pkg) && !description.matches("(?s).*\\b(API|SPI)\\b.*")) {
                violations.add(pkg + "'s package-info.java says neither API nor SPI, and the package is not named internal");
            }
            if (isInternal(pkg) && export != null) {
                violations.add(pkg + " is internal but exported" + to(export.targets()));
            } else if (isInternal(pkg) && opens.containsKey(pkg) && opens.get(pkg).targets().isEmpty()) {
                violations.add(pkg + " is internal but open to every module");
            } else if (!isInternal(pkg) && (export == null || export.isQualified())) {
                violations.add(pkg + " is API or SPI but not exported"
                        + (export == null ? "" : " to every module (only" + to(export.targets()) + ")"));
            }
        }
        fail("module " + name() + " exports its API and SPI packages only", violations);
    }

    /**
     * A consumer module that {@code requires} this one, on a module path of this module and what
     * it requires (from the test class path), compiles with an import of a public type of every
     * package that is not internal, and fails with "not visible" on an import of a public type of
     * each internal package.
     */
    public void assertConsumerSeesApiOnly() {
        assertConsumerSeesApiOnly(ModulePath.of(List.of(name()), List.of(classes)));
    }

    /** {@link #assertConsumerSeesApiOnly()} on the given module path (which must hold this module). */
    public void assertConsumerSeesApiOnly(List<Path> modulePath) {
        List<String> violations = new ArrayList<>();
        List<String> api = new ArrayList<>();
        List<String> internal = new ArrayList<>();
        publicTypes.forEach((pkg, types) -> {
            if (!types.isEmpty()) {
                (isInternal(pkg) ? internal : api).add(types.get(0));
            }
        });
        ConsumerModule.Result apiUse = ConsumerModule.compileAndForget(ConsumerModule.importing(name(), api), modulePath);
        if (!apiUse.compiled()) {
            violations.add("a consumer importing " + api + " does not compile:\n" + apiUse.messages());
        }
        if (!internal.isEmpty()) {
            ConsumerModule.Result internalUse =
                    ConsumerModule.compileAndForget(ConsumerModule.importing(name(), internal), modulePath);
            for (String type : internal) {
                String pkg = ClassReferences.packageOf(type);
                if (internalUse.errors().stream().noneMatch(e -> e.contains("package " + pkg + " is not visible"))) {
                    violations.add("a consumer can import " + type + " (" + pkg + " is internal)");
                }
            }
            internalUse.errors().stream().filter(e -> !e.contains(" is not visible"))
                    .forEach(e -> violations.add("a consumer importing internal types fails for another reason: " + e));
        }
        fail("a consumer of module " + name() + " sees its API and SPI only", violations);
    }

    /** Each package of the Java sources under {@code sourceRoot} → its package-info.java's description, if it has one. */
    private static Map<String, Optional<String>> sourcePackages(Path sourceRoot) {
        Map<String, Optional<String>> packages = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            for (Path directory : walk.filter(p -> p.toString().endsWith(".java")).map(Path::getParent)
                    .collect(Collectors.toCollection(TreeSet::new))) {
                String pkg = sourceRoot.relativize(directory).toString().replace('\\', '/').replace('/', '.');
                Path info = directory.resolve("package-info.java");
                if (!pkg.isEmpty()) {
                    // The description only: the package's own name may say "internal".
                    packages.put(pkg, Files.exists(info)
                            ? Optional.of(Files.readString(info).replaceAll("(?m)^\\s*package\\s+[\\w.]+\\s*;", ""))
                            : Optional.empty());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sources in " + sourceRoot, e);
        }
        if (packages.isEmpty()) {
            throw new IllegalArgumentException("no Java packages in " + sourceRoot.toAbsolutePath());
        }
        return packages;
    }

    private static String to(Set<String> targets) {
        return targets.isEmpty() ? "" : " to " + new TreeSet<>(targets);
    }

    private static void fail(String what, List<String> violations) {
        if (!violations.isEmpty()) {
            throw new AssertionError(what + ": " + violations.size() + " violation(s)\n  - "
                    + String.join("\n  - ", violations));
        }
    }
}
