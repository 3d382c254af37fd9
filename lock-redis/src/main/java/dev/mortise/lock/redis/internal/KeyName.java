package dev.mortise.lock.redis.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * One Redis name of a user key kept as its parts, {@code prefix + kind + tag} (and {@code ":" + owner}
 * for a cancelled marker), for the KEYS and ARGV of a script call. The single-node Lettuce path
 * ({@link ScriptArgs}) writes the parts straight into the network buffer, so a name sent once per
 * call is never built as a string; every other path (Redisson, a Lettuce Cluster, messages) reads
 * {@link #toString()}, which builds it once. Equal in content to the matching {@link RedisKeys}
 * string. Immutable; {@link #toString()} caches racily, which is safe for a String.
 */
final class KeyName implements CharSequence {

    private final String prefix;
    /** ASCII, with its colons: {@code ":fence:"}. */
    private final String kind;
    /** ASCII: {@code "{" + percent-encoded key + "}"}. */
    private final String tag;
    /** Appended after a colon, or null. */
    private final String owner;
    private String text;

    KeyName(String prefix, String kind, String tag, String owner) {
        this.prefix = prefix;
        this.kind = kind;
        this.tag = tag;
        this.owner = owner;
    }

    /** Bytes of the name in UTF-8. */
    int utf8Length() {
        int length = ByteBufUtil.utf8Bytes(prefix) + kind.length() + tag.length();
        return owner == null ? length : length + 1 + ByteBufUtil.utf8Bytes(owner);
    }

    /** Writes the name in UTF-8, part by part. */
    void writeUtf8(ByteBuf buf) {
        ByteBufUtil.writeUtf8(buf, prefix);
        ByteBufUtil.writeAscii(buf, kind);
        ByteBufUtil.writeAscii(buf, tag);
        if (owner != null) {
            buf.writeByte(':');
            ByteBufUtil.writeUtf8(buf, owner);
        }
    }

    @Override
    public int length() {
        return toString().length();
    }

    @Override
    public char charAt(int index) {
        return toString().charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return toString().subSequence(start, end);
    }

    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = owner == null ? prefix + kind + tag : prefix + kind + tag + ":" + owner;
            text = t;
        }
        return t;
    }
}
