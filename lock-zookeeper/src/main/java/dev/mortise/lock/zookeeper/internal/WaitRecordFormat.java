package dev.mortise.lock.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The data of a wait-record node ({@link ZkWaitRecords}): {@code <nonce>\n<ttl in ms>\n<text>} in
 * UTF-8. The nonce is kept for the compare-and-delete of a removal, the TTL for readers, who judge
 * expiry by the server's clock. Also checks the holder ids and nonces the core passes, since they
 * become path segments. Stateless.
 */
final class WaitRecordFormat {

    private static final Pattern HOLDER_ID = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern NONCE = Pattern.compile("[0-9a-z]{1,32}");

    /** A decoded record. */
    record Entry(String nonce, long ttlMillis, String text) {
    }

    private WaitRecordFormat() {
    }

    static byte[] encode(String nonce, long ttlMillis, String text) {
        return (nonce + "\n" + ttlMillis + "\n" + text).getBytes(StandardCharsets.UTF_8);
    }

    /** The record in {@code data}; null if it is not one (a node someone else put there). */
    static Entry decode(byte[] data) {
        if (data == null) {
            return null;
        }
        String all = new String(data, StandardCharsets.UTF_8);
        int first = all.indexOf('\n');
        int second = first < 0 ? -1 : all.indexOf('\n', first + 1);
        if (second < 0) {
            return null;
        }
        try {
            return new Entry(all.substring(0, first), Long.parseLong(all.substring(first + 1, second)),
                    all.substring(second + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The distinct holder ids, checked: each is a node's name. */
    static List<String> checked(Collection<String> holderIds) {
        List<String> ids = List.copyOf(new LinkedHashSet<>(holderIds));
        for (String id : ids) {
            if (!HOLDER_ID.matcher(id).matches()) {
                throw new IllegalArgumentException("A wait record's holder id is 16 lowercase hex digits, was '" + id
                        + "' (backend 'zookeeper')");
            }
        }
        return ids;
    }

    static String checkedNonce(String nonce) {
        if (!NONCE.matcher(nonce).matches()) {
            throw new IllegalArgumentException("A wait record's nonce is 1 to 32 characters of [0-9a-z], was '" + nonce
                    + "' (backend 'zookeeper')");
        }
        return nonce;
    }
}
