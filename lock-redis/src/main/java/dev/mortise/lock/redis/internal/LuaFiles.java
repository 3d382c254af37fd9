package dev.mortise.lock.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua of the backend's scripts, read once from the class path ({@code dev/mortise/lock/redis/lua/}),
 * where each script is one file whose header comment states its KEYS, ARGV and reply. A script that
 * calls a shared helper ({@code next_token}, {@code now_ms}, the readers' and writers' helpers,
 * {@code hand_over}) is sent as {@code prelude.lua} followed by its own file, so every such script
 * carries the same helpers, defined once; the few that call none are sent as written. Each family of
 * commands keeps its scripts as constants, so each file is read and hashed once per class loader.
 * Stateless; thread-safe.
 */
public final class LuaFiles {

    private static final String DIR = "/dev/mortise/lock/redis/lua/";
    private static final String PRELUDE = read("prelude");

    private LuaFiles() {
    }

    /** {@code prelude.lua}, then {@code <name>.lua}. */
    public static LuaScript withPrelude(String name) {
        return LuaScript.of(name, PRELUDE + read(name));
    }

    /** {@code prelude.lua}, then the helpers of {@code <helpers>.lua}, then {@code <name>.lua}. */
    static LuaScript withPrelude(String name, String helpers) {
        return LuaScript.of(name, PRELUDE + read(helpers) + read(name));
    }

    /** {@code <name>.lua} as written: a script that calls no helper. */
    static LuaScript alone(String name) {
        return LuaScript.of(name, read(name));
    }

    private static String read(String name) {
        String path = DIR + name + ".lua";
        try (InputStream in = LuaFiles.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the Lua script " + path + " is missing from the class path: "
                        + "the lock-redis jar is incomplete (backend 'redis')");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the Lua script " + path + " (backend 'redis')", e);
        }
    }
}
