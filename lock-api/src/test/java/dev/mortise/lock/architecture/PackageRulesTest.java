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
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PackageRules} finds what it is for: each rule is shown failing on classes compiled here
 * with the fault planted (a cycle, a use of internal, another module's internal, a package without
 * its description), and passing once the fault is gone.
 */
class PackageRulesTest {

    @TempDir
    Path dir;

    @Test
    void findsACycleEvenThroughAFullyQualifiedName() throws IOException {
        Path classes = compile(Map.of(
                "fx/a/A.java", "package fx.a; public class A { public static Object make() { return new A(); } "
                        + "Object b() { return fx.b.B.make(); } }",
                "fx/b/B.java", "package fx.b; public class B { public static Object make() { return new B(); } "
                        + "Object a() { return fx.a.A.make(); } }",
                "fx/c/C.java", "package fx.c; public class C { fx.a.A a; }"));
        PackageRules rules = PackageRules.of(classes, "fx", "fx");

        assertThat(rules.cycles()).singleElement().asString()
                .contains("cycle among [fx.a, fx.b]", "fx.a -> fx.b (A -> B)", "fx.b -> fx.a (B -> A)")
                .doesNotContain("fx.c");
        assertThatThrownBy(rules::assertNoCycles).isInstanceOf(AssertionError.class)
                .hasMessageContaining("cycle among [fx.a, fx.b]");
        assertThatThrownBy(rules::assertStandard).isInstanceOf(AssertionError.class);
    }

    @Test
    void anAcceptedUseBreaksTheCycleAndMustStillExist() throws IOException {
        Path classes = compile(Map.of(
                "fx/a/A.java", "package fx.a; public class A { fx.b.B b; }",
                "fx/b/B.java", "package fx.b; public class B { java.util.List<fx.a.A> a; }"));

        PackageRules.of(classes, "fx", "fx").acceptUse("fx.b", "fx.a.A", "planted").assertNoCycles();
        assertThatThrownBy(() -> PackageRules.of(classes, "fx", "fx").acceptUse("fx.b", "fx.a.A", "planted")
                .acceptUse("fx.a", "fx.b.Gone", "stale").assertNoCycles())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("accepted use fx.a -> fx.b.Gone (stale) no longer exists");
    }

    @Test
    void findsAnApiPackageUsingInternal() throws IOException {
        Path classes = compile(Map.of(
                "fx/Api.java", "package fx; public interface Api { default Object x() { return new fx.internal.Impl(); } }",
                "fx/internal/Impl.java", "package fx.internal; public class Impl implements fx.Api { }",
                "fx/internal/deep/Deep.java", "package fx.internal.deep; public class Deep { fx.internal.Impl i; }"));
        PackageRules rules = PackageRules.of(classes, "fx", "fx");

        assertThatThrownBy(rules::assertApiUsesNoInternal).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 violation(s)").hasMessageContaining("fx (API) -> fx.internal (Api -> Impl)");
    }

    @Test
    void findsAnotherModulesInternalButNotItsApi() throws IOException {
        Path classes = compile(Map.of(
                "fx/mod/Mine.java", "package fx.mod; public class Mine { fx.other.internal.Theirs t; fx.other.Api a; }",
                "fx/other/Api.java", "package fx.other; public class Api { }",
                "fx/other/internal/Theirs.java", "package fx.other.internal; public class Theirs { }"));
        PackageRules rules = PackageRules.of(classes, "fx.mod", "fx");

        assertThat(rules.packages()).containsExactly("fx.mod");
        assertThat(rules.packageGraph()).containsEntry("fx.mod", java.util.Set.of("fx.other", "fx.other.internal"));
        assertThatThrownBy(rules::assertNoForeignInternal).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 violation(s)")
                .hasMessageContaining("fx.mod -> fx.other.internal (another module's) (Mine -> Theirs)");
        assertThatThrownBy(() -> rules.assertUsesOnly("fx.mod", "fx.other")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("fx.mod -> fx.other.internal");
    }

    @Test
    void theRootAndDeclaredFrontDoorsMayUseTheirOwnInternalButNoOneAnothers() throws IOException {
        Path classes = compile(Map.of(
                "fx/mod/Backend.java", "package fx.mod; public class Backend { fx.mod.internal.Engine e; }",
                "fx/mod/config/Wiring.java", "package fx.mod.config; public class Wiring { fx.mod.internal.Engine e; }",
                "fx/mod/internal/Engine.java", "package fx.mod.internal; public class Engine { }"));

        assertThatThrownBy(() -> PackageRules.of(classes, "fx.mod", "fx").assertStandard())
                .isInstanceOf(AssertionError.class).hasMessageContaining("1 violation(s)")
                .hasMessageContaining("fx.mod.config (API) -> fx.mod.internal (Wiring -> Engine)");
        PackageRules.of(classes, "fx.mod", "fx").frontDoor("fx.mod.config", "assembles the module").assertStandard();
        assertThatThrownBy(() -> PackageRules.of(classes, "fx.mod", "fx").frontDoor("fx.mod.config", "wiring")
                .assertApiUsesNoInternal())
                .isInstanceOf(AssertionError.class).hasMessageContaining("2 violation(s)")
                .hasMessageContaining("fx.mod (API) -> fx.mod.internal (Backend -> Engine)");
        assertThatThrownBy(() -> PackageRules.of(classes, "fx.mod", "fx").frontDoor("fx.mod.internal", "no"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void evenTheRootMayNotUseAnotherModulesInternal() throws IOException {
        Path foreign = compile(Map.of(
                "fx/mod/Backend.java", "package fx.mod; public class Backend { fx.other.internal.Theirs t; }",
                "fx/other/internal/Theirs.java", "package fx.other.internal; public class Theirs { }"));
        assertThatThrownBy(() -> PackageRules.of(foreign, "fx.mod", "fx").assertStandard())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("fx.mod (API) -> fx.other.internal (Backend -> Theirs)")
                .hasMessageContaining("fx.mod -> fx.other.internal (another module's) (Backend -> Theirs)");
    }

    @Test
    void aFrontDoorThatNoLongerUsesItsInternalsMustGo() throws IOException {
        Path classes = compile(Map.of(
                "fx/mod/Backend.java", "package fx.mod; public class Backend { fx.mod.internal.Engine e; }",
                "fx/mod/config/Wiring.java", "package fx.mod.config; public class Wiring { fx.mod.Backend b; }",
                "fx/mod/internal/Engine.java", "package fx.mod.internal; public class Engine { }"));

        assertThatThrownBy(() -> PackageRules.of(classes, "fx.mod", "fx").frontDoor("fx.mod.config", "was wiring")
                .assertStandard())
                .isInstanceOf(AssertionError.class).hasMessageContaining("1 violation(s)")
                .hasMessageContaining("front door fx.mod.config (was wiring) uses no internal package of its module");
    }

    @Test
    void passesAModuleThatKeepsTheRules() throws IOException {
        Path classes = compile(Map.of(
                "fx/Api.java", "package fx; public interface Api { }",
                "fx/spi/Backend.java", "package fx.spi; public interface Backend { }",
                "fx/internal/Impl.java", "package fx.internal; public class Impl implements fx.Api { fx.spi.Backend b; }"));

        PackageRules.of(classes, "fx", "fx").assertStandard();
    }

    @Test
    void findsAPackageWithoutItsDescription() throws IOException {
        Path sources = dir.resolve("sources");
        write(sources, "module-info.java", "module fx { exports fx; }"); // in no package: nothing to describe
        write(sources, "fx/Api.java", "package fx; public interface Api { }");
        write(sources, "fx/package-info.java", "/** The API: what users call. */\npackage fx;");
        write(sources, "fx/a/A.java", "package fx.a; class A { }");
        write(sources, "fx/b/B.java", "package fx.b; class B { }");
        write(sources, "fx/b/package-info.java", "/** Helpers. */\npackage fx.b;");
        PackageRules rules = PackageRules.of(compile(Map.of("fx/Api.java", "package fx; public interface Api { }")),
                "fx", "fx");

        assertThatThrownBy(() -> rules.assertPackagesDescribed(sources)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("2 violation(s)").hasMessageContaining("fx.a has no package-info.java")
                .hasMessageContaining("fx.b's package-info.java does not say whether it is API, SPI or internal");
    }

    private Path compile(Map<String, String> files) throws IOException {
        Path sources = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
        for (Map.Entry<String, String> file : files.entrySet()) {
            args.add(write(sources, file.getKey(), file.getValue()).toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, null, errors, args.toArray(String[]::new));
        assertThat(status).as("javac: %s", errors).isZero();
        return classes;
    }

    private static Path write(Path base, String relative, String text) throws IOException {
        Path file = base.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }
}
