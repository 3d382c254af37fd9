package dev.mortise.lock.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The package rules of one module, checked on its compiled classes: which of its packages use
 * which (see {@link ClassReferences} for what counts as a use). Any module's tests can call it
 * with a class of their root package:
 *
 * <pre>{@code
 * @Test
 * void packages() {
 *     PackageRules.of(RedisLockBackend.class).assertStandard();
 * }
 * }</pre>
 *
 * <p>The module's packages are those under the root package with classes in the directory or jar
 * the anchor class was loaded from; uses are counted within the namespace (the first two segments
 * of the root, {@code dev.mortise}), so another module's packages are seen too. A package is
 * internal if one of its segments is {@code internal}; every other package is API (users or
 * backend writers may depend on it).
 *
 * <p>{@link #assertStandard()} checks the rules every module keeps: no package cycle among the
 * module's packages; no package using another module's internal packages; and no API package
 * using an internal one, except that the module's root package may use the module's own internal
 * packages. The root is a module's front door: a backend's {@code JdbcLockBackend} and its builder
 * assemble the backend's implementation, so they must reach it; another API package that assembles
 * the module (a Spring auto-configuration) says so with {@link #frontDoor}. A module whose API is
 * a contract others implement (lock-api) asks for {@link #assertApiUsesNoInternal()}, which
 * excuses no package. Each assertion lists every violation with the classes behind it.
 *
 * <p>Not thread-safe; build one per test.
 */
public final class PackageRules {

    private final String root;
    private final String namespace;
    /** This module's packages. */
    private final Set<String> own = new TreeSet<>();
    /** Top-level class of the module → the top-level classes of other packages it uses. */
    private final Map<String, Set<String>> uses = new TreeMap<>();
    private final List<AcceptedUse> accepted = new ArrayList<>();
    /** API packages besides the root that may use this module's own internal packages → why. */
    private final Map<String, String> frontDoors = new TreeMap<>();

    /** A use left out of the cycle check: classes of {@code fromPackage} using {@code toClass}. */
    private record AcceptedUse(String fromPackage, String toClass, String why) {
    }

    private PackageRules(String root, String namespace) {
        this.root = root;
        this.namespace = namespace;
    }

    /**
     * The rules of the module that holds {@code anchor}: its root package is the anchor's, its
     * classes are those of the directory or jar the anchor was loaded from.
     */
    public static PackageRules of(Class<?> anchor) {
        Path location;
        try {
            location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot locate the classes of " + anchor, e);
        }
        String rootPackage = anchor.getPackageName();
        String[] segments = rootPackage.split("\\.");
        String namespace = segments.length < 2 ? rootPackage : segments[0] + "." + segments[1];
        return of(location, rootPackage, namespace);
    }

    /**
     * The rules of the classes in {@code location} (a directory of class files or a jar) under
     * {@code rootPackage}, counting uses of classes under {@code namespace}.
     */
    public static PackageRules of(Path location, String rootPackage, String namespace) {
        PackageRules rules = new PackageRules(rootPackage, namespace);
        try {
            if (Files.isDirectory(location)) {
                rules.read(location);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(location)) {
                    rules.read(jar.getPath("/"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes in " + location, e);
        }
        if (rules.own.isEmpty()) {
            throw new IllegalArgumentException("no classes of package " + rootPackage + " in " + location);
        }
        return rules;
    }

    private void read(Path base) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(base)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).toList();
        }
        for (Path file : files) {
            String relative = base.relativize(file).toString().replace('\\', '/');
            String binary = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
            String pkg = ClassReferences.packageOf(binary);
            if (binary.endsWith("module-info") || !(pkg.equals(root) || pkg.startsWith(root + "."))) {
                continue;
            }
            own.add(pkg);
            Set<String> used = uses.computeIfAbsent(ClassReferences.topLevel(binary), k -> new TreeSet<>());
            try (InputStream in = Files.newInputStream(file)) {
                for (String name : ClassReferences.of(in, namespace + ".")) {
                    if (!ClassReferences.packageOf(name).equals(pkg)) {
                        used.add(ClassReferences.topLevel(name));
                    }
                }
            } catch (IOException e) {
                throw new IOException(file + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Leaves the uses of {@code toClass} by classes of {@code fromPackage} out of the cycle check,
     * for a cycle the module keeps on purpose; {@code why} says why. An accepted use that no longer
     * exists fails {@link #assertNoCycles()}, so the acceptance goes with it.
     */
    public PackageRules acceptUse(String fromPackage, String toClass, String why) {
        accepted.add(new AcceptedUse(fromPackage, toClass, why));
        return this;
    }

    /**
     * Lets {@code pkg}, an API package of this module besides its root, use the module's own
     * internal packages (never another module's), as the root may: for a package that assembles
     * the module's implementation, such as a Spring auto-configuration; {@code why} says why. A
     * front door that no longer uses any own internal package fails {@link #assertStandard()}.
     *
     * @throws IllegalArgumentException if {@code pkg} is not an API package of this module
     */
    public PackageRules frontDoor(String pkg, String why) {
        if (!own.contains(pkg) || isInternal(pkg)) {
            throw new IllegalArgumentException(pkg + " is not an API package of " + root + ": " + own);
        }
        frontDoors.put(pkg, why);
        return this;
    }

    /** This module's packages, sorted. */
    public Set<String> packages() {
        return new TreeSet<>(own);
    }

    /** Each of this module's packages → the packages it uses (this module's and others', in the namespace). */
    public Map<String, Set<String>> packageGraph() {
        Map<String, Set<String>> graph = new TreeMap<>();
        own.forEach(p -> graph.put(p, new TreeSet<>()));
        uses.forEach((from, targets) -> targets.forEach(to ->
                graph.get(ClassReferences.packageOf(from)).add(ClassReferences.packageOf(to))));
        return graph;
    }

    /**
     * The package cycles of this module (accepted uses left out): one line per set of packages that
     * reach each other, with the uses that tie them.
     */
    public List<String> cycles() {
        Map<String, Set<String>> graph = new TreeMap<>();
        own.forEach(p -> graph.put(p, new TreeSet<>()));
        uses.forEach((from, targets) -> targets.forEach(to -> {
            String target = ClassReferences.packageOf(to);
            if (own.contains(target) && !isAccepted(from, to)) {
                graph.get(ClassReferences.packageOf(from)).add(target);
            }
        }));
        List<String> found = new ArrayList<>();
        for (Set<String> component : StronglyConnected.components(graph)) {
            if (component.size() > 1) {
                List<String> ties = new ArrayList<>();
                for (String from : component) {
                    for (String to : graph.get(from)) {
                        if (component.contains(to)) {
                            ties.add(from + " -> " + to + " " + examples(from, to));
                        }
                    }
                }
                found.add("cycle among " + component + ":\n      " + String.join("\n      ", ties));
            }
        }
        return found;
    }

    /** Every accepted use that no longer exists. */
    private List<String> staleAcceptances() {
        List<String> stale = new ArrayList<>();
        for (AcceptedUse use : accepted) {
            boolean exists = uses.entrySet().stream().anyMatch(e ->
                    ClassReferences.packageOf(e.getKey()).equals(use.fromPackage()) && e.getValue().contains(use.toClass()));
            if (!exists) {
                stale.add("accepted use " + use.fromPackage() + " -> " + use.toClass() + " (" + use.why()
                        + ") no longer exists: remove its acceptUse");
            }
        }
        return stale;
    }

    private boolean isAccepted(String fromClass, String toClass) {
        String pkg = ClassReferences.packageOf(fromClass);
        return accepted.stream().anyMatch(a -> a.fromPackage().equals(pkg) && a.toClass().equals(toClass));
    }

    /** Up to three class-level uses behind the package use {@code from -> to}. */
    private String examples(String fromPackage, String toPackage) {
        List<String> found = new ArrayList<>();
        uses.forEach((from, targets) -> {
            if (ClassReferences.packageOf(from).equals(fromPackage)) {
                targets.stream().filter(t -> ClassReferences.packageOf(t).equals(toPackage))
                        .forEach(t -> found.add(simple(from) + " -> " + simple(t)));
            }
        });
        return "(" + String.join(", ", found.subList(0, Math.min(3, found.size())))
                + (found.size() > 3 ? ", and " + (found.size() - 3) + " more" : "") + ")";
    }

    private static String simple(String binaryName) {
        return binaryName.substring(binaryName.lastIndexOf('.') + 1);
    }

    private static boolean isInternal(String pkg) {
        return Arrays.asList(pkg.split("\\.")).contains("internal");
    }

    // ---- assertions -----------------------------------------------------------------------

    /**
     * {@link #assertNoCycles()}, {@link #assertNoForeignInternal()}, and no API package using an
     * internal one but the root's and the {@link #frontDoor front doors'} uses of the module's own.
     */
    public void assertStandard() {
        List<String> violations = new ArrayList<>(cycles());
        violations.addAll(staleAcceptances());
        violations.addAll(apiUsingInternal(true));
        violations.addAll(staleFrontDoors());
        violations.addAll(foreignInternal());
        fail("package rules of " + root, violations);
    }

    /** No package cycle among this module's packages (accepted uses left out), and no stale acceptance. */
    public void assertNoCycles() {
        List<String> violations = new ArrayList<>(cycles());
        violations.addAll(staleAcceptances());
        fail("package cycles in " + root, violations);
    }

    /**
     * No API package of this module, the root and front doors included, uses an internal package
     * (this module's or another's): for a module whose API is a contract, such as lock-api's.
     */
    public void assertApiUsesNoInternal() {
        fail("API packages of " + root + " using internal ones", apiUsingInternal(false));
    }

    /** No package of this module uses another module's internal packages. */
    public void assertNoForeignInternal() {
        fail("packages of " + root + " using another module's internal ones", foreignInternal());
    }

    /**
     * {@code pkg} uses no package of the namespace but {@code allowed} (for a module's own layering,
     * e.g. an API that uses only its SPI).
     */
    public void assertUsesOnly(String pkg, String... allowed) {
        if (!own.contains(pkg)) {
            throw new IllegalArgumentException(pkg + " is not a package of " + root + ": " + own);
        }
        Set<String> allow = Set.of(allowed);
        List<String> violations = new ArrayList<>();
        packageGraph().get(pkg).stream().filter(to -> !allow.contains(to))
                .forEach(to -> violations.add(pkg + " -> " + to + " " + examples(pkg, to)));
        fail(pkg + " may use only " + allow, violations);
    }

    /** API packages using internal ones; with {@code excuseFrontDoors}, not the front doors' uses of their own. */
    private List<String> apiUsingInternal(boolean excuseFrontDoors) {
        List<String> violations = new ArrayList<>();
        packageGraph().forEach((from, targets) -> {
            if (!isInternal(from)) {
                boolean frontDoor = excuseFrontDoors && (from.equals(root) || frontDoors.containsKey(from));
                targets.stream().filter(to -> isInternal(to) && !(frontDoor && own.contains(to)))
                        .forEach(to -> violations.add(from + " (API) -> " + to + " " + examples(from, to)));
            }
        });
        return violations;
    }

    /** Every declared front door that no longer uses any of this module's internal packages. */
    private List<String> staleFrontDoors() {
        Map<String, Set<String>> graph = packageGraph();
        List<String> stale = new ArrayList<>();
        frontDoors.forEach((pkg, why) -> {
            if (graph.get(pkg).stream().noneMatch(to -> isInternal(to) && own.contains(to))) {
                stale.add("front door " + pkg + " (" + why + ") uses no internal package of its module: remove its frontDoor");
            }
        });
        return stale;
    }

    private List<String> foreignInternal() {
        List<String> violations = new ArrayList<>();
        packageGraph().forEach((from, targets) -> targets.stream()
                .filter(to -> isInternal(to) && !own.contains(to))
                .forEach(to -> violations.add(from + " -> " + to + " (another module's) " + examples(from, to))));
        return violations;
    }

    /**
     * Every package of this module's sources under {@code sourceRoot} (e.g. {@code src/main/java})
     * has a {@code package-info.java} that says whether it is API, SPI or internal.
     */
    public void assertPackagesDescribed(Path sourceRoot) {
        List<String> violations = new ArrayList<>();
        Set<Path> directories = new LinkedHashSet<>();
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            walk.filter(p -> p.toString().endsWith(".java") && !p.endsWith("module-info.java"))
                    .forEach(p -> directories.add(p.getParent()));
            for (Path directory : directories) {
                Path info = directory.resolve("package-info.java");
                String pkg = sourceRoot.relativize(directory).toString().replace('\\', '/').replace('/', '.');
                if (!Files.exists(info)) {
                    violations.add(pkg + " has no package-info.java");
                } else if (!Files.readString(info).matches("(?s).*\\b(API|SPI|[Ii]nternal)\\b.*")) {
                    violations.add(pkg + "'s package-info.java does not say whether it is API, SPI or internal");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sources in " + sourceRoot, e);
        }
        if (directories.isEmpty()) {
            throw new IllegalArgumentException("no Java sources in " + sourceRoot.toAbsolutePath());
        }
        fail("package descriptions in " + sourceRoot, violations);
    }

    private static void fail(String what, List<String> violations) {
        if (!violations.isEmpty()) {
            throw new AssertionError(what + ": " + violations.size() + " violation(s)\n  - "
                    + String.join("\n  - ", violations));
        }
    }
}
