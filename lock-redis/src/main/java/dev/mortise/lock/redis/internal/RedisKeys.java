package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.KeyEncoding;

/**
 * The Redis names of one user key: {@code <prefix>:lock:{<enc>}}, {@code <prefix>:fence:{<enc>}},
 * the release channel {@code <prefix>:released:{<enc>}}, the shared holds {@code <prefix>:readers:{<enc>}},
 * the waiting writers {@code <prefix>:writers:{<enc>}} and their hand-off offers
 * {@code <prefix>:handoffs:{<enc>}}, and, in fair mode,
 * {@code <prefix>:queue:{<enc>}} and {@code <prefix>:waiters:{<enc>}}, where {@code <enc>} is the
 * user key percent-encoded so that it contains no brace. The braces make {@code <enc>} the hash
 * tag, so every name of a key lives in one cluster slot, and no user key can choose another
 * slot or meet another key's names.
 *
 * <p>Only the prefix and the braced tag {@code {<enc>}} are kept, and each name is built on
 * demand in one step ({@code prefix + kind + tag}: one string, no builder): an acquire sends
 * five names once each and a release two, so caching them would allocate as much as it saves,
 * and this object travels with each grant for the whole lease, so keeping only the tag (not
 * the full lock name) is also the smaller per-lease footprint. Immutable and thread-safe.
 */
public final class RedisKeys {

    private final String prefix;
    /** {@code "{" + enc + "}"}: the hash tag shared by every name of the key. */
    private final String tag;
    /** The Cluster slot, or -1 until asked for: only a Cluster needs it, so a single node never computes it. */
    private int slot = -1;
    /** {@link #lock()}, made once: the acquire and the release of a hold both send it. */
    private String lock;

    private RedisKeys(String prefix, String tag) {
        this.prefix = prefix;
        this.tag = tag;
    }

    /** Encodes {@code key} injectively under {@code prefix} (which must contain no brace). */
    public static RedisKeys of(String prefix, String key) {
        String enc = encode(key);
        return new RedisKeys(prefix, "{" + enc + "}");
    }

    /** The key holding the owner, with the lease as its TTL. */
    public String lock() {
        String name = lock;
        if (name == null) {
            name = prefix + ":lock:" + tag;
            lock = name; // racing threads make equal strings; a String is safely published
        }
        return name;
    }

    /** The counter of fencing tokens; never expires. */
    public String fence() {
        return prefix + ":fence:" + tag;
    }

    /** Where release is published. */
    public String channel() {
        return prefix + ":released:" + tag;
    }

    /** Shared holds: a hash owner → "expiry-ms:token", whose PTTL is the latest expiry. */
    public String readers() {
        return prefix + ":readers:" + tag;
    }

    /** Non-fair mode: the markers of waiting exclusive requests, a hash owner → deadline-ms. */
    public String writers() {
        return prefix + ":writers:" + tag;
    }

    /**
     * Non-fair mode: the hand-off offers of waiting exclusive requests, a hash owner →
     * "fresh-until-ms:lease-ms"; a release hands the lock to a waiter whose offer is still fresh.
     */
    public String handOffs() {
        return prefix + ":handoffs:" + tag;
    }

    /** Fair mode: waiting owners by arrival. */
    public String queue() {
        return prefix + ":queue:" + tag;
    }

    /** Fair mode: each waiting owner's deadline and lease. */
    public String waiters() {
        return prefix + ":waiters:" + tag;
    }

    /**
     * The marker that {@code owner}'s attempt was given up ({@code <prefix>:cancelled:{<enc>}:<owner>}):
     * while it lives, the acquire scripts refuse that owner, so a clean-up that reaches Redis before
     * the attempt it cleans up after still wins. It expires by itself.
     */
    public String cancelled(String owner) {
        return prefix + ":cancelled:" + tag + ":" + owner;
    }

    /**
     * The wait record of deadlock detection kept under {@code holderId} ({@code <prefix>:waits:{<holderId>}},
     * see {@link WaitRecordCommands}): one name per holder id, the holder id (encoded as a user key is,
     * which leaves the 16 hex digits the core sends as they are) its hash tag, so each lives in the slot
     * of its own holder id.
     */
    public static String waitRecord(String prefix, String holderId) {
        return prefix + ":waits:{" + encode(holderId) + "}";
    }

    /** {@link #fence()} as its parts, for a script call ({@link KeyName}). */
    public KeyName fenceName() {
        return new KeyName(prefix, ":fence:", tag, null);
    }

    /** {@link #channel()} as its parts, for a script call. */
    public KeyName channelName() {
        return new KeyName(prefix, ":released:", tag, null);
    }

    /** {@link #readers()} as its parts, for a script call. */
    public KeyName readersName() {
        return new KeyName(prefix, ":readers:", tag, null);
    }

    /** {@link #writers()} as its parts, for a script call. */
    public KeyName writersName() {
        return new KeyName(prefix, ":writers:", tag, null);
    }

    /** {@link #handOffs()} as its parts, for a script call. */
    public KeyName handOffsName() {
        return new KeyName(prefix, ":handoffs:", tag, null);
    }

    /** {@link #cancelled(String)} as its parts, for a script call. */
    public KeyName cancelledName(String owner) {
        return new KeyName(prefix, ":cancelled:", tag, owner);
    }

    /** The Redis Cluster slot of all of them. */
    public int slot() {
        int s = slot;
        if (s < 0) {
            s = Crc16.slot(tag.substring(1, tag.length() - 1)); // the slot of enc, the tag's inside
            slot = s; // racing threads compute the same value
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisKeys other && tag.equals(other.tag) && prefix.equals(other.prefix);
    }

    @Override
    public int hashCode() {
        return 31 * prefix.hashCode() + tag.hashCode();
    }

    @Override
    public String toString() {
        return lock();
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
