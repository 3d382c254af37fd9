package dev.mortise.lock.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys that would silently make every call share one lock (or lock on nothing) fail:
 * at start-up when the expression shows it, at the call when only the arguments do.
 */
class DistributedLockKeySafetyTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner();

    @Test
    void misspelledArgumentNameFailsStartupNamingTheParameters() {
        runner.withBean(Misspelled.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Misspelled.reserve(String)")
                .hasStackTraceContaining("\"'item:' + #itemID\"")
                .hasStackTraceContaining("#itemID")
                .hasStackTraceContaining("[itemId]"));
    }

    @Test
    void positionalRootThisAndBeanReferencesPass() {
        runner.withBean(Positional.class).withBean("prefixes", Prefixes.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Positional.class).run("a", "b")).isEqualTo("a:b:run:p");
                });
    }

    @Test
    void unquotedLiteralFailsStartupSuggestingQuotes() {
        runner.withBean(Unquoted.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Unquoted.run()")
                .hasStackTraceContaining("\"billing-run\"")
                .hasStackTraceContaining("\"'billing-run'\""));
        runner.withBean(UnquotedWord.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("UnquotedWord.run()")
                .hasStackTraceContaining("\"'nightly'\""));
    }

    @Test
    void nullPartOfAConcatenatedKeyIsAnErrorAtTheCall() {
        runner.withBean(Concatenated.class).run(context -> {
            Concatenated service = context.getBean(Concatenated.class);
            assertThat(service.reserve("7", "a")).isEqualTo("item:7:a");
            assertThat(service.reserve("nullable", "null-ok")).isEqualTo("item:nullable:null-ok");
            assertThatThrownBy(() -> service.reserve(null, "a")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Concatenated.reserve(String, String)")
                    .hasMessageContaining("\"'item:' + #itemId + ':' + #kind\"")
                    .hasMessageContaining("#itemId")
                    .hasMessageContaining("null");
            assertThat(service.calls).isZero();
        });
    }

    @Test
    void identityToStringIsAnErrorAtTheCall() {
        runner.withBean(Identity.class).run(context -> {
            Identity service = context.getBean(Identity.class);
            assertThatThrownBy(() -> service.whole(new Object())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Identity.whole(Object)")
                    .hasMessageContaining("toString");
            assertThatThrownBy(() -> service.part(new Plain())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Identity.part(Object)")
                    .hasMessageContaining("toString");
            assertThat(service.part(new Named("x"))).isEqualTo("p:x@1");
            assertThat(service.calls).isZero();
        });
    }

    @Test
    void mapsAsKeysAreRejectedPointingToAMultiKeyLockOfTheirKeysOrValues() {
        // collections and arrays are multi-key locks (DistributedLockMultiKeyTests); a map is ambiguous
        runner.withBean(Multi.class).run(context -> {
            Multi service = context.getBean(Multi.class);
            assertThatThrownBy(() -> service.map(java.util.Map.of("a", "b"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Multi.map(Map)").hasMessageContaining("multi-key lock")
                    .hasMessageContaining("#map.keySet()");
            assertThat(service.list(List.of("a", "b"))).isTrue();
        });
    }

    /**
     * A class compiled without {@code -parameters}, as a build without the flag would: its
     * {@code #itemId} would always be null.
     */
    @Test
    void missingParameterNamesFailStartupNamingTheFlag(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("nop/NoNames.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package nop;
                public class NoNames {
                    @dev.mortise.lock.spring.DistributedLock(key = "'item:' + #itemId")
                    public String reserve(String itemId) { return itemId; }
                }
                """);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(null, null, null, "-proc:none", "-cp", System.getProperty("java.class.path"),
                "-d", dir.toString(), source.toString());
        assertThat(status).isZero();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> type = loader.loadClass("nop.NoNames");
            runner.withClassLoader(loader).withBean(type).run(context -> assertThat(context).hasFailed().getFailure()
                    .hasStackTraceContaining("NoNames.reserve(String)")
                    .hasStackTraceContaining("-parameters")
                    .hasStackTraceContaining("#p0"));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    public static class Misspelled {
        @DistributedLock(key = "'item:' + #itemID")
        public void reserve(String itemId) {
        }
    }

    public static class Prefixes {
        public String get() {
            return "p";
        }
    }

    public static class Positional {
        @DistributedLock(key = "#p0 + ':' + #a1 + ':' + #root.methodName + ':' + @prefixes.get() + #this.args.length")
        public String run(String a, String b) {
            return LockTestSupport.currentKey().replace("2", "");
        }
    }

    public static class Unquoted {
        @DistributedLock(key = "billing-run")
        public void run() {
        }
    }

    public static class UnquotedWord {
        @DistributedLock(key = "nightly")
        public void run() {
        }
    }

    public static class Concatenated {
        int calls;

        @DistributedLock(key = "'item:' + #itemId + ':' + #kind")
        public String reserve(String itemId, String kind) {
            calls++;
            return LockTestSupport.currentKey();
        }
    }

    public static class Plain {
    }

    public record Named(String name) {
        @Override
        public String toString() {
            return name + "@1";
        }
    }

    public static class Identity {
        int calls;

        @DistributedLock(key = "#key")
        public String whole(Object key) {
            calls++;
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "'p:' + #key")
        public String part(Object key) {
            calls++;
            return LockTestSupport.currentKey();
        }
    }

    public static class Multi {
        @DistributedLock(key = "#keys")
        public boolean list(List<String> keys) {
            return keys.stream().allMatch(key -> dev.mortise.lock.LockContext.find(key).isPresent());
        }

        @DistributedLock(key = "#keys")
        public void map(java.util.Map<String, String> keys) {
        }
    }
}
