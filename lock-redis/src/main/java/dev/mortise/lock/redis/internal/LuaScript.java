package dev.mortise.lock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script and its SHA-1, computed here exactly as Redis computes it, so the first
 * call can be an {@code EVALSHA} without a {@code SCRIPT LOAD} round trip.
 *
 * @param name   short name for error messages
 * @param source the Lua text
 * @param sha    lowercase hex SHA-1 of {@code source}
 */
public record LuaScript(String name, String source, String sha) {

    public static LuaScript of(String name, String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new LuaScript(name, source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
