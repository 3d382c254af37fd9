package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The value stored in the key column for a user's key: the key itself when it is shorter
 * than the column (in UTF-8 bytes) and storable as text, otherwise a readable prefix,
 * {@code #} and the SHA-256 of the key, padded to exactly the column's length.
 *
 * <p>Injective by length: kept keys are strictly shorter than the column, hashed ones
 * exactly as long, so the two never meet, and distinct hashed keys differ in their
 * digest. {@link dev.mortise.lock.spi.KeyEncoding#bounded} is not used as is because it
 * counts UTF-16 units (the columns count characters or bytes) and relies on its input never
 * containing {@code #}, which raw keys may. The digest is taken over the UTF-16 code units
 * themselves, because every charset encoder maps a lone surrogate to a replacement.
 *
 * @param value    what goes into the key column
 * @param original the user's key when {@code value} is hashed (for diagnostics), else null
 */
public record StoredKey(String value, String original) {

    /** The smallest column this encoding fits: a digest, its marker and a short prefix. */
    public static final int MIN_COLUMN_BYTES = 80;

    public static StoredKey of(String key, int columnBytes) {
        if (storable(key) && key.getBytes(StandardCharsets.UTF_8).length < columnBytes) {
            return new StoredKey(key, null);
        }
        int budget = columnBytes - 65;
        StringBuilder prefix = new StringBuilder(budget);
        int bytes = 0;
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == 0 || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                cp = '?';
            }
            int size = utf8Length(cp);
            if (bytes + size > budget) {
                break;
            }
            prefix.appendCodePoint(cp);
            bytes += size;
        }
        prefix.append("~".repeat(budget - bytes));
        return new StoredKey(prefix + "#" + digest(key), diagnostic(key));
    }

    /** PostgreSQL text holds no NUL, and no database holds an unpaired surrogate. */
    private static boolean storable(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= key.length() || !Character.isLowSurrogate(key.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static String diagnostic(String key) {
        return storable(key) ? key : key.replace('\0', '\uFFFD').replaceAll("[\\uD800-\\uDFFF]", "\uFFFD");
    }

    private static int utf8Length(int cp) {
        return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }

    private static String digest(String key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] units = new byte[key.length() * 2];
            for (int i = 0; i < key.length(); i++) {
                units[2 * i] = (byte) (key.charAt(i) >> 8);
                units[2 * i + 1] = (byte) key.charAt(i);
            }
            return HexFormat.of().formatHex(sha.digest(units));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
