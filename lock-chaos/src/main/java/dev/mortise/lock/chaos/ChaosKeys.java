package dev.mortise.lock.chaos;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The lock keys of a run: random, unrelated names drawn from a seed (printed and kept in the
 * result, so a run's keys can be drawn again), and how they travel between the controller and
 * the worker JVMs.
 *
 * <p>Names have no shared prefix and any first character: ASCII letters, digits, space and
 * punctuation ({@code / : % * \ " '} and the like), Latin, Greek, Cyrillic, Arabic and CJK
 * letters, and emoji outside the Basic Multilingual Plane (surrogate pairs). Left out, because
 * the library rejects them or no backend could store them: blank names (rejected by every
 * {@code LockClient}), control characters (PostgreSQL, the ledger's store, refuses NUL) and
 * unpaired surrogates (no UTF-8 form; rejected).
 *
 * <p>On a worker's command line the keys go as base64 of their UTF-8 bytes (a JVM decodes its
 * arguments in the platform charset); on an event line as percent-encoded UTF-8 (one token
 * without spaces, whatever the charset of stdout).
 */
public final class ChaosKeys {

    /** Code point ranges a name's characters are drawn from (inclusive), each equally likely. */
    private static final int[][] RANGES = {
            {0x20, 0x7E},       // ASCII printable, space and punctuation included
            {'a', 'z'},         // more plain letters, so some names look ordinary
            {0xC0, 0x17F},      // Latin-1 and Latin Extended-A letters
            {0x391, 0x3C9},     // Greek
            {0x410, 0x44F},     // Cyrillic
            {0x627, 0x64A},     // Arabic (right to left)
            {0x4E00, 0x4FFF},   // CJK ideographs
            {0x1F300, 0x1F64F}, // emoji: two UTF-16 units, four UTF-8 bytes
    };

    private ChaosKeys() {
    }

    /** {@code count} distinct random names drawn from {@code seed}; the same seed gives the same names. */
    public static List<String> random(long seed, int count) {
        Random random = new Random(seed);
        Set<String> keys = new LinkedHashSet<>();
        while (keys.size() < count) {
            String key = name(random);
            if (!key.isBlank()) {
                keys.add(key);
            }
        }
        return List.copyOf(keys);
    }

    private static String name(Random random) {
        int length = 1 + random.nextInt(16);
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int[] range = RANGES[random.nextInt(RANGES.length)];
            name.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
        }
        return name.toString();
    }

    /** The keys for a worker's command line: base64 (URL alphabet) of each key's UTF-8, comma-separated. */
    public static String toArgument(List<String> keys) {
        return String.join(",", keys.stream().map(k -> Base64.getUrlEncoder().withoutPadding()
                .encodeToString(k.getBytes(StandardCharsets.UTF_8))).toList());
    }

    /** The keys back from {@link #toArgument}. */
    public static List<String> fromArgument(String argument) {
        return new ArrayList<>(Arrays.stream(argument.split(","))
                .map(k -> new String(Base64.getUrlDecoder().decode(k), StandardCharsets.UTF_8)).toList());
    }

    /** A key as one space-free ASCII token of an event line. */
    public static String encode(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /** A key back from {@link #encode}. */
    public static String decode(String token) {
        return URLDecoder.decode(token, StandardCharsets.UTF_8);
    }

    /** A key as a Java/JSON string literal (escaped, quoted): how reports and evidence show it. */
    public static String quoted(String key) {
        StringBuilder s = new StringBuilder("\"");
        key.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '`' -> s.append("\\u0060"); // keeps Markdown code spans whole
                case '|' -> s.append("\\u007c"); // keeps Markdown table cells whole
                default -> s.appendCodePoint(c);
            }
        });
        return s.append('"').toString();
    }
}
