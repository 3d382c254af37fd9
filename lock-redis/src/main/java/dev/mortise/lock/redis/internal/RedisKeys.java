package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.KeyEncoding;

/**
 * The Redis names of one user key: {@code <prefix>:lock:{<enc>}}, {@code <prefix>:fence:{<enc>}},
 * the release channel {@code <prefix>:released:{<enc>}}, the shared holds {@code <prefix>:readers:{<enc>}},
 * the waiting writers {@code <prefix>:writers:{<enc>}} and, in fair mode,
 * {@code <prefix>:queue:{<enc>}} and {@code <prefix>:waiters:{<enc>}}, where {@code <enc>} is the
 * user key percent-encoded so that it contains no brace. The braces make {@code <enc>} the hash
 * tag, so every name of a key lives in one cluster slot, and no user key can choose another
 * slot or meet another key's names.
 *
 * <p>Only the lock name is kept: it is what every held lease needs (renewal, release), and
 * this object travels with each grant, so the other names are derived from it on demand.
 * Immutable and thread-safe.
 */
public final class RedisKeys {

    private static final String LOCK = ":lock:";

    private final String prefix;
    private final String lock;
    private final int slot;

    private RedisKeys(String prefix, String lock, int slot) {
        this.prefix = prefix;
        this.lock = lock;
        this.slot = slot;
    }

    /** Encodes {@code key} injectively under {@code prefix} (which must contain no brace). */
    public static RedisKeys of(String prefix, String key) {
        String tag = encode(key);
        return new RedisKeys(prefix, prefix + LOCK + "{" + tag + "}", Crc16.slot(tag));
    }

    /** The key holding the owner, with the lease as its TTL. */
    public String lock() {
        return lock;
    }

    /** The counter of fencing tokens; never expires. */
    public String fence() {
        return named(":fence:");
    }

    /** Where release is published. */
    public String channel() {
        return named(":released:");
    }

    /** Shared holds: a hash owner → "expiry-ms:token", whose PTTL is the latest expiry. */
    public String readers() {
        return named(":readers:");
    }

    /** Non-fair mode: the markers of waiting exclusive requests, a hash owner → deadline-ms. */
    public String writers() {
        return named(":writers:");
    }

    /** Fair mode: waiting owners by arrival. */
    public String queue() {
        return named(":queue:");
    }

    /** Fair mode: each waiting owner's deadline and lease. */
    public String waiters() {
        return named(":waiters:");
    }

    /**
     * The marker that {@code owner}'s attempt was given up ({@code <prefix>:cancelled:{<enc>}:<owner>}):
     * while it lives, the acquire scripts refuse that owner, so a clean-up that reaches Redis before
     * the attempt it cleans up after still wins. It expires by itself.
     */
    public String cancelled(String owner) {
        return named(":cancelled:") + ":" + owner;
    }

    /** The Redis Cluster slot of all of them. */
    public int slot() {
        return slot;
    }

    /** {@code <prefix><kind>{<enc>}}, copied from the lock name's braced tag. */
    private String named(String kind) {
        int tag = prefix.length() + LOCK.length();
        return new StringBuilder(lock.length() - LOCK.length() + kind.length())
                .append(prefix).append(kind).append(lock, tag, lock.length()).toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisKeys other && lock.equals(other.lock);
    }

    @Override
    public int hashCode() {
        return lock.hashCode();
    }

    @Override
    public String toString() {
        return lock;
    }

    /**
     * Printable ASCII except braces stays as is; everything else (braces, spaces, control
     * characters, non-ASCII bytes, and always {@code %} and {@code #}) becomes {@code %XX}.
     */
    static String encode(String key) {
        for (int i = 0; i < key.length(); i++) {
            if (!safe(key.charAt(i))) {
                return KeyEncoding.percentEncode(key, RedisKeys::safe);
            }
        }
        return key; // what percentEncode would return, without copying it
    }

    private static boolean safe(int c) {
        return c > 0x20 && c < 0x7f && c != '{' && c != '}' && c != '%' && c != '#';
    }
}
