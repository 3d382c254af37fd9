package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.KeyEncoding;

/**
 * The Redis names of one user key: {@code <prefix>:lock:{<enc>}}, {@code <prefix>:fence:{<enc>}}
 * and the release channel {@code <prefix>:released:{<enc>}}, where {@code <enc>} is the user
 * key percent-encoded so that it contains no brace. The braces make {@code <enc>} the hash
 * tag, so the lock and its counter live in one cluster slot, and no user key can choose
 * another slot or meet another key's names. Immutable.
 *
 * @param lock    the key holding the owner, with the lease as its TTL
 * @param fence   the counter of fencing tokens; never expires
 * @param channel where release is published
 * @param queue   fair mode: waiting owners by arrival
 * @param waiters fair mode: each waiting owner's deadline and lease
 * @param slot    the Redis Cluster slot of all of them
 */
public record RedisKeys(String lock, String fence, String channel, String queue, String waiters, int slot) {

    /** Encodes {@code key} injectively under {@code prefix} (which must contain no brace). */
    public static RedisKeys of(String prefix, String key) {
        String tag = encode(key);
        return new RedisKeys(prefix + ":lock:{" + tag + "}", prefix + ":fence:{" + tag + "}",
                prefix + ":released:{" + tag + "}", prefix + ":queue:{" + tag + "}", prefix + ":waiters:{" + tag + "}",
                Crc16.slot(tag));
    }

    /**
     * Printable ASCII except braces stays as is; everything else (braces, spaces, control
     * characters, non-ASCII bytes, and always {@code %} and {@code #}) becomes {@code %XX}.
     */
    static String encode(String key) {
        return KeyEncoding.percentEncode(key, c -> c > 0x20 && c < 0x7f && c != '{' && c != '}');
    }
}
