package dev.mortise.lock.redis.internal;

/**
 * One Redis name of a user key kept as its parts, {@code prefix + kind + tag} (and {@code ":" + owner}
 * for a cancelled marker), for the KEYS and ARGV of a script call. The single-node Lettuce path
 * ({@code lettuce.ScriptArgs}) writes the parts straight into the network buffer, so a name sent once
 * per call is never built as a string; every other path (Redisson, a Lettuce Cluster, messages) reads
 * {@link #toString()}, which builds it once. Equal in content to the matching {@link RedisKeys}
 * string. Immutable; {@link #toString()} caches racily, which is safe for a String.
 */
public final class KeyName implements CharSequence {

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

    public String prefix() {
        return prefix;
    }

    /** ASCII, with its colons: {@code ":fence:"}. */
    public String kind() {
        return kind;
    }

    /** ASCII: {@code "{" + percent-encoded key + "}"}. */
    public String tag() {
        return tag;
    }

    /** The owner appended after a colon (a cancelled marker), or null. */
    public String owner() {
        return owner;
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
