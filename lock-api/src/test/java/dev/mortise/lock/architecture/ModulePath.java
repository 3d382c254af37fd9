package dev.mortise.lock.architecture;

import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The module path a consumer of one module compiles against, taken from the test's class path:
 * the module and what it requires, transitively, leaving out {@code static} requirements that
 * are not also {@code transitive} (a consumer that does not require them does not get them) and
 * the JDK's modules. Only these go on
 * the path: an automatic module makes every automatic module on the path part of the compile, and
 * a test class path holds many that would then clash (split packages).
 *
 * <p>Tests run on the class path, where every jar and every directory with a {@code module-info.class}
 * is a module candidate: explicit modules by their descriptor, other jars as automatic modules
 * (named by their {@code Automatic-Module-Name} or file name). Stateless; thread-safe.
 */
final class ModulePath {

    private ModulePath() {
    }

    /**
     * The locations of the {@code roots} (found in {@code own}, then on the test class path) and of
     * the modules they need, in the order found.
     *
     * @throws AssertionError if a required module is neither there nor in the JDK
     */
    static List<Path> of(List<String> roots, List<Path> own) {
        Map<String, Path> candidates = new LinkedHashMap<>();
        own.forEach(location -> modulesIn(location).forEach(candidates::putIfAbsent));
        for (String entry : testClassPath()) {
            modulesIn(Path.of(entry)).forEach(candidates::putIfAbsent);
        }
        Set<String> needed = new LinkedHashSet<>();
        List<String> missing = new ArrayList<>();
        Deque<String> toVisit = new ArrayDeque<>(roots);
        while (!toVisit.isEmpty()) {
            String name = toVisit.pop();
            if (ModuleFinder.ofSystem().find(name).isPresent() || !needed.add(name)) {
                continue; // the JDK's modules are there already
            }
            Optional<ModuleDescriptor> descriptor = describe(candidates.get(name));
            if (descriptor.isEmpty()) {
                missing.add(name);
                continue;
            }
            for (ModuleDescriptor.Requires requires : descriptor.get().requires()) {
                Set<ModuleDescriptor.Requires.Modifier> modifiers = requires.modifiers();
                // javac wants a static requirement present when it is also transitive (JUnit's apiguardian).
                boolean compiledAgainst = !modifiers.contains(ModuleDescriptor.Requires.Modifier.STATIC)
                        || modifiers.contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE);
                if (compiledAgainst) {
                    toVisit.add(requires.name());
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new AssertionError("modules needed by " + roots + " not found on the test class path: " + missing);
        }
        return needed.stream().map(candidates::get).toList();
    }

    /** The test's class path: surefire's (it may start tests through a manifest-only jar), else the JVM's. */
    private static List<String> testClassPath() {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(path.split(File.pathSeparator));
    }

    /** The module at {@code location} by name, if it is one: a jar, or a directory with a module-info.class. */
    private static Map<String, Path> modulesIn(Path location) {
        boolean exploded = Files.isDirectory(location) && Files.exists(location.resolve("module-info.class"));
        boolean jar = Files.isRegularFile(location) && location.toString().endsWith(".jar");
        if (!exploded && !jar) {
            return Map.of();
        }
        try {
            Map<String, Path> found = new LinkedHashMap<>();
            for (ModuleReference module : ModuleFinder.of(location).findAll()) {
                found.put(module.descriptor().name(), location);
            }
            return found;
        } catch (FindException e) {
            return Map.of(); // a jar Java cannot name (e.g. its file name is no module name): not a module
        }
    }

    private static Optional<ModuleDescriptor> describe(Path location) {
        if (location == null) {
            return Optional.empty();
        }
        return ModuleFinder.of(location).findAll().stream().map(ModuleReference::descriptor).findFirst();
    }
}
