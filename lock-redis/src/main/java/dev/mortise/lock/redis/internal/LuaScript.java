package dev.mortise.lock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script and its SHA-1, computed here exactly as Redis computes it, so the first
 * call can be an {@code EVALSHA} without a {@code SCRIPT LOAD} round trip. Both are also kept
 * UTF-8 encoded, once, for transports that write bytes (the Lettuce driver). The scripts
 * themselves are files ({@link LuaFiles}). Immutable.
 */
public final class LuaScript {

    private final String name;
    private final String source;
    private final String sha;
    private final byte[] sourceBytes;
    private final byte[] shaBytes;

    private LuaScript(String name, String source, String sha) {
        this.name = name;
        this.source = source;
        this.sha = sha;
        this.sourceBytes = source.getBytes(StandardCharsets.UTF_8);
        this.shaBytes = sha.getBytes(StandardCharsets.US_ASCII);
    }

    public static LuaScript of(String name, String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new LuaScript(name, source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }

    /** Short name for error messages. */
    public String name() {
        return name;
    }

    /** The Lua text. */
    public String source() {
        return source;
    }

    /** Lowercase hex SHA-1 of {@link #source()}. */
    public String sha() {
        return sha;
    }

    /** {@link #source()} in UTF-8; shared, never to be written to. */
    public byte[] sourceBytes() {
        return sourceBytes;
    }

    /** {@link #sha()} in ASCII; shared, never to be written to. */
    public byte[] shaBytes() {
        return shaBytes;
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", " + sha + "]";
    }
}
