package dev.mortise.lock.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.IntPredicate;

/**
 * Injective key encodings for backends that cannot store every string as given
 * (ZooKeeper path segments, Redis hash tags, etcd prefixes, bounded columns).
 * Two different keys never encode to the same string.
 */
public final class KeyEncoding {

    private KeyEncoding() {
    }

    /**
     * Percent-encodes (UTF-8, {@code %XX}) every byte of {@code key} whose character is not
     * {@code safe}; {@code %} and {@code #} are always encoded, so the result never contains
     * {@code #} (which {@link #bounded} uses as its marker). Injective over well-formed
     * UTF-16, which is all the core lets through (it rejects unpaired surrogates).
     *
     * @throws IllegalArgumentException if {@code key} has an unpaired surrogate
     */
    public static String percentEncode(String key, IntPredicate safe) {
        if (!isWellFormed(key)) {
            throw new IllegalArgumentException("key has an unpaired UTF-16 surrogate and no UTF-8 form: " + key);
        }
        StringBuilder out = new StringBuilder(key.length() + 8);
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c < 0x80 && c != '%' && c != '#' && safe.test(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    private static boolean isWellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** ASCII letters, digits and {@code - _ . : ~} — safe in paths, URLs and SQL identifiers. */
    public static boolean isPlainChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || c == '.' || c == ':' || c == '~';
    }

    /**
     * {@code encoded} unchanged if it fits in {@code maxLength} characters; otherwise a
     * prefix of it, {@code #}, and the SHA-256 of the whole in hex (64 characters), so
     * that the result fits and stays readable. Injective over outputs of
     * {@link #percentEncode} up to SHA-256 collisions.
     *
     * @throws IllegalArgumentException if maxLength is under 66
     */
    public static String bounded(String encoded, int maxLength) {
        if (maxLength < 66) {
            throw new IllegalArgumentException("maxLength must be at least 66, was " + maxLength);
        }
        if (encoded.length() <= maxLength) {
            return encoded;
        }
        String prefix = encoded.substring(0, maxLength - 65);
        return prefix + "#" + sha256Hex(encoded);
    }

    /** The SHA-256 of the UTF-8 bytes of {@code text}, in lowercase hex. */
    public static String sha256Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
