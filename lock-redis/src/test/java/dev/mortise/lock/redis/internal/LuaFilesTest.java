package dev.mortise.lock.redis.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts as {@link LuaFiles} composes them: a script that calls a helper of {@code prelude.lua}
 * is sent after it, and one sent alone calls none (else Redis would fail it, as a call of an
 * undefined global, only once that line runs).
 */
class LuaFilesTest {

    private static final List<LuaScript> SCRIPTS = List.of(ExclusiveCommands.ACQUIRE, ExclusiveCommands.RELEASE,
            ExclusiveCommands.RELEASE_HANDING, ExclusiveCommands.UNMARK, ExclusiveCommands.RAISE_FENCE,
            SharedCommands.ACQUIRE_SHARED, SharedCommands.ACQUIRE_PERMITS, SharedCommands.RELEASE_SHARED,
            SharedCommands.SET_PERMITS, FairCommands.ACQUIRE, FairCommands.RELEASE, BatchAcquire.ACQUIRE_ALL,
            HoldCommands.RENEW, HoldCommands.CANCEL, Inspection.INSPECT, Inspection.PING);

    /** A call of a function {@code prelude.lua} defines. */
    private static final Pattern HELPER_CALL = Pattern.compile(
            "\\b(next_token|now_ms|reader_entry|add_reader|prune_readers|live_writers|keep_lock|keep_share|hand_over)\\(");

    @Test
    void aScriptIsSentAfterThePreludeExactlyWhenItCallsOneOfItsHelpers() throws IOException {
        String prelude = resource("prelude.lua");
        assertThat(prelude).doesNotContain("\r");
        for (LuaScript script : SCRIPTS) {
            boolean withPrelude = script.source().startsWith(prelude);
            String own = withPrelude ? script.source().substring(prelude.length()) : script.source();
            assertThat(withPrelude).as("%s is sent after prelude.lua", script.name())
                    .isEqualTo(HELPER_CALL.matcher(withoutComments(own)).find());
        }
    }

    @Test
    void eachScriptIsItsFileAndHashedAsRedisWould() throws IOException {
        for (LuaScript script : SCRIPTS) {
            assertThat(script.source()).as(script.name()).endsWith(resource(script.name() + ".lua"));
            assertThat(script.sha()).matches("[0-9a-f]{40}");
        }
        assertThat(LuaScript.of("ping", "return 1").sha()).as("SHA-1 of 'return 1', as SCRIPT LOAD answers it")
                .isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    private static String withoutComments(String lua) {
        return lua.replaceAll("--[^\n]*", "");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = LuaFilesTest.class.getResourceAsStream("/dev/mortise/lock/redis/lua/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
