package dev.mortise.lock.architecture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ModuleRules} finds what it is for, on a module {@code fx} compiled here with an API
 * package ({@code fx}), an SPI package ({@code fx.spi}) and an internal one ({@code fx.internal}):
 * each check passes on the right module-info and fails with the fault planted (an internal package
 * exported or opened, an API package forgotten, a package that does not say what it is).
 */
class ModuleRulesTest {

    private static final String RIGHT = "module fx { exports fx; exports fx.spi; }";

    @TempDir
    Path dir;

    @Test
    void passesAModuleThatExportsItsApiAndSpiOnly() throws IOException {
        ModuleRules rules = ModuleRules.of(compile(RIGHT, Map.of()));

        assertThat(rules.name()).isEqualTo("fx");
        rules.assertExportsApiAndSpiOnly(dir.resolve("src"));
        rules.assertConsumerSeesApiOnly(List.of(dir.resolve("classes")));
    }

    @Test
    void findsAnExportedInternalPackage() throws IOException {
        ModuleRules rules = ModuleRules.of(compile("module fx { exports fx; exports fx.spi; exports fx.internal; }",
                Map.of()));

        assertThatThrownBy(() -> rules.assertExportsApiAndSpiOnly(dir.resolve("src")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("1 violation(s)")
                .hasMessageContaining("fx.internal is internal but exported");
        assertThatThrownBy(() -> rules.assertConsumerSeesApiOnly(List.of(dir.resolve("classes"))))
                .isInstanceOf(AssertionError.class).hasMessageContaining("1 violation(s)")
                .hasMessageContaining("a consumer can import fx.internal.Impl (fx.internal is internal)");
    }

    @Test
    void findsAnInternalPackageOpenToEveryModuleButNotOneOpenToANamedModule() throws IOException {
        ModuleRules open = ModuleRules.of(compile("module fx { exports fx; exports fx.spi; opens fx.internal; }",
                Map.of()));
        assertThatThrownBy(() -> open.assertExportsApiAndSpiOnly(dir.resolve("src")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("fx.internal is internal but open to every module");

        ModuleRules openToOne = ModuleRules.of(compile(
                "module fx { exports fx; exports fx.spi; opens fx.internal to java.logging; }", Map.of()));
        openToOne.assertExportsApiAndSpiOnly(dir.resolve("src"));
        openToOne.assertConsumerSeesApiOnly(List.of(dir.resolve("classes")));
    }

    @Test
    void findsAForgottenApiPackage() throws IOException {
        ModuleRules rules = ModuleRules.of(compile("module fx { exports fx; }", Map.of()));

        assertThatThrownBy(() -> rules.assertExportsApiAndSpiOnly(dir.resolve("src")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("1 violation(s)")
                .hasMessageContaining("fx.spi is API or SPI but not exported");
        assertThatThrownBy(() -> rules.assertConsumerSeesApiOnly(List.of(dir.resolve("classes"))))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("a consumer importing [fx.Api, fx.spi.Backend] does not compile")
                .hasMessageContaining("package fx.spi is not visible");
    }

    @Test
    void findsAPackageThatDoesNotSayWhatItIs() throws IOException {
        ModuleRules rules = ModuleRules.of(compile(RIGHT, Map.of(
                "fx/spi/package-info.java", "/** Helpers. */\npackage fx.spi;",
                "fx/internal/package-info.java", "/** The engine. */\npackage fx.internal;")));

        assertThatThrownBy(() -> rules.assertExportsApiAndSpiOnly(dir.resolve("src")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("2 violation(s)")
                .hasMessageContaining("fx.spi's package-info.java says neither API nor SPI")
                .hasMessageContaining("fx.internal is named internal but its package-info.java does not say it is internal");
    }

    @Test
    void refusesClassesWithoutAModuleInfo() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        assertThatThrownBy(() -> ModuleRules.of(plain)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no module-info.class");
    }

    /** Compiles module fx (its module-info {@code moduleInfo}, its files overridden by {@code changes}) into dir/classes. */
    private Path compile(String moduleInfo, Map<String, String> changes) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("module-info.java", moduleInfo);
        files.put("fx/package-info.java", "/** The API: what users call. */\npackage fx;");
        files.put("fx/Api.java", "package fx; public interface Api { }");
        files.put("fx/spi/package-info.java", "/** The SPI: what backends implement. */\npackage fx.spi;");
        files.put("fx/spi/Backend.java", "package fx.spi; public interface Backend { }");
        files.put("fx/internal/package-info.java", "/** Internal: the implementation. */\npackage fx.internal;");
        files.put("fx/internal/Impl.java", "package fx.internal; public class Impl implements fx.Api { }");
        files.putAll(changes);
        Path sources = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
        for (Map.Entry<String, String> file : files.entrySet()) {
            Path path = sources.resolve(file.getKey());
            Files.createDirectories(path.getParent());
            args.add(Files.writeString(path, file.getValue()).toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, args.toArray(String[]::new));
        assertThat(status).as("javac: %s", errors).isZero();
        return classes;
    }
}
