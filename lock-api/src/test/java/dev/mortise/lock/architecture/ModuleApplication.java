package dev.mortise.lock.architecture;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An application module over one Mortise module, compiled and run on a module path: what only the
 * module path shows (resources in a module's packages, services, what Spring may reflect on),
 * since the tests themselves run on the class path. The application is the module
 * {@value #NAME} with a class {@code app.App} whose public static {@code run()} returns what the
 * test checks:
 *
 * <pre>{@code
 * Object answer = ModuleApplication.over(JdbcLockBackend.class).run(dir, Map.of(
 *         "module-info.java", "module mortise.app { requires dev.mortise.lock.jdbc; exports app; }",
 *         "app/App.java", "package app; public class App { public static String run() { ... } }"));
 * }</pre>
 *
 * <p>The module path is the Mortise module, the modules the application requires, the ones named
 * as {@code alsoNeeded}, and what they all require, found on the test class path. Immutable; a run
 * sets system properties and the thread's context class loader, so runs are not to overlap.
 */
public final class ModuleApplication {

    /** The application module's name. */
    public static final String NAME = "mortise.app";

    /**
     * What a Spring Boot application needs at run time from Spring's own jars, which are automatic
     * modules and so declare no requirements: name them as {@code alsoNeeded}.
     */
    public static final List<String> SPRING_BOOT = List.of("spring.boot", "spring.boot.autoconfigure",
            "spring.context", "spring.aop", "spring.expression", "org.apache.commons.logging",
            "micrometer.observation", "micrometer.commons");

    private static final Pattern REQUIRES = Pattern.compile("requires\\s+(?:(?:static|transitive)\\s+)*([\\w.]+)\\s*;");

    private final ModuleRules module;
    /** System properties set while the application runs (e.g. a test server's address). */
    private final Map<String, String> properties;

    private ModuleApplication(ModuleRules module, Map<String, String> properties) {
        this.module = module;
        this.properties = properties;
    }

    /** Applications over the module whose classes {@code anchor} was loaded from. */
    public static ModuleApplication over(Class<?> anchor) {
        return new ModuleApplication(ModuleRules.of(anchor), Map.of());
    }

    /** The same, with the system property {@code key} set to {@code value} while the application runs. */
    public ModuleApplication withProperty(String key, String value) {
        Map<String, String> more = new HashMap<>(properties);
        more.put(key, value);
        return new ModuleApplication(module, Map.copyOf(more));
    }

    /**
     * Compiles the application from {@code sources} (file path under the source root → text, its
     * {@code module-info.java} among them) into {@code dir}, runs it in a new {@link ModuleLayer}
     * with the layer's class loader as the thread's context class loader (as the application class
     * loader is on a module path; Spring loads through it), and returns what {@code app.App.run()}
     * returns. What {@code run()} throws is thrown as it is. The {@link #withProperty} system
     * properties are set while it runs.
     *
     * @throws AssertionError if the application does not compile
     */
    public Object run(Path dir, Map<String, String> sources, String... alsoNeeded) throws Exception {
        List<String> roots = new ArrayList<>(List.of(module.name()));
        Matcher requires = REQUIRES.matcher(sources.getOrDefault("module-info.java", ""));
        while (requires.find()) {
            roots.add(requires.group(1));
        }
        roots.addAll(List.of(alsoNeeded));
        ConsumerModule.Result compiled = ConsumerModule.compile(dir, sources, ModulePath.of(roots, List.of(module.classes())));
        if (!compiled.compiled()) {
            throw new AssertionError("the application module does not compile:\n" + compiled.messages());
        }
        roots.add(NAME);
        List<Path> path = ModulePath.of(roots, List.of(module.classes(), dir.resolve("classes")));
        Set<String> rootNames = new LinkedHashSet<>(roots);
        rootNames.removeIf(name -> ModuleFinder.ofSystem().find(name).isPresent());
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(ModuleFinder.of(path.toArray(Path[]::new)), ModuleFinder.of(), rootNames);
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        return call(layer.findLoader(NAME), "app.App", "run");
    }

    private Object call(ClassLoader loader, String className, String method) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        properties.forEach(System::setProperty);
        try {
            return loader.loadClass(className).getMethod(method).invoke(null);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } finally {
            thread.setContextClassLoader(context);
            properties.keySet().forEach(System::clearProperty);
        }
    }

    /**
     * The sources of a Spring Boot application {@value #NAME} that requires the {@code requires}
     * modules and opens its package {@code app} (Spring builds and proxies its beans):
     * {@code app.App}, a {@code @SpringBootApplication} with {@code members}, whose {@code run()}
     * starts the application with {@code arguments}, runs {@code body} (statements that use
     * {@code context} and return a String) and closes it. {@code imports} are import lines.
     */
    public static Map<String, String> springBoot(List<String> requires, String imports, String members, String body,
            String... arguments) {
        StringBuilder moduleInfo = new StringBuilder("module " + NAME + " {\n");
        requires.forEach(r -> moduleInfo.append("    requires ").append(r).append(";\n"));
        moduleInfo.append("    opens app;\n}\n");
        String args = Stream.concat(Stream.of("--spring.main.banner-mode=off"), Stream.of(arguments))
                .map(a -> '"' + a + '"').collect(Collectors.joining(", "));
        String app = """
                package app;

                import org.springframework.boot.SpringApplication;
                import org.springframework.boot.autoconfigure.SpringBootApplication;
                import org.springframework.context.ConfigurableApplicationContext;
                %s
                @SpringBootApplication(proxyBeanMethods = false)
                public class App {
                %s
                    public static String run() throws Exception {
                        try (ConfigurableApplicationContext context = new SpringApplication(App.class).run(%s)) {
                %s
                        }
                    }
                }
                """.formatted(imports, members, args, body);
        return Map.of("module-info.java", moduleInfo.toString(), "app/App.java", app);
    }
}
