package dev.mortise.lock.tck;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Random lock keys for the property suite: random lengths (1 to 60 characters), any first
 * character (letters, digits, punctuation a backend may treat specially, spaces, accented
 * and CJK letters, Cyrillic, emoji as surrogate pairs), some families sharing long
 * prefixes and some standing alone — never one fixed test prefix, so a backend that
 * encodes, hashes or partitions keys by their start is exercised across its whole range.
 * Every key is valid UTF-16, not blank, and well within 512 UTF-8 bytes.
 */
final class PropertyKeys {

    /** Single characters and short fragments keys are drawn from; some are several chars (surrogate pairs). */
    private static final String[] ALPHABET = {
            "a", "b", "z", "A", "Q", "0", "7", "9", "/", ".", ":", "-", " ", "_", "{", "}", "#", "*", "%", "'", "\"",
            "\\", "?", "=", "é", "ß", "ä", "a\u0308", "锁", "日", "本", "ключ", "Ω", "\uD83D\uDD12", "\uD83D\uDE00",
            "\uD834\uDD1E", "\t", "~", "@", "+", ",", "$"};

    private static final int MAX_CHARS = 60;

    private PropertyKeys() {
    }

    /** {@code count} distinct keys, the same for the same {@code random} state. */
    static List<String> pool(Random random, int count) {
        Set<String> keys = new LinkedHashSet<>();
        List<String> prefixes = new ArrayList<>();
        while (keys.size() < count) {
            String key;
            int shape = random.nextInt(10);
            if (shape < 4 || prefixes.isEmpty()) {
                key = fragment(random, 1 + random.nextInt(MAX_CHARS));
                if (key.length() >= 8 && random.nextBoolean()) {
                    prefixes.add(key.substring(0, safeCut(key, 4 + random.nextInt(key.length() - 4))));
                }
            } else if (shape < 8) {
                // shares a (possibly long) prefix with other keys
                String prefix = prefixes.get(random.nextInt(prefixes.size()));
                key = prefix + fragment(random, 1 + random.nextInt(Math.max(1, MAX_CHARS - prefix.length())));
            } else {
                // a key that is a prefix of, or one character off, another key
                List<String> existing = new ArrayList<>(keys);
                String other = existing.isEmpty() ? fragment(random, 5) : existing.get(random.nextInt(existing.size()));
                key = random.nextBoolean() && other.length() > 1 ? other.substring(0, safeCut(other, other.length() - 1))
                        : other + fragment(random, 1);
            }
            key = key.substring(0, safeCut(key, Math.min(key.length(), MAX_CHARS)));
            if (valid(key)) {
                keys.add(key);
            }
        }
        return List.copyOf(keys);
    }

    private static String fragment(Random random, int length) {
        StringBuilder key = new StringBuilder();
        while (key.length() < length) {
            key.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        int cut = safeCut(key.toString(), length);
        return key.substring(0, cut == 0 ? Math.min(2, key.length()) : cut);
    }

    /** The cut nearest below {@code at} that does not split a surrogate pair. */
    private static int safeCut(String s, int at) {
        if (at > 0 && at < s.length() && Character.isHighSurrogate(s.charAt(at - 1))) {
            return at - 1;
        }
        return at;
    }

    /** Non-blank, no unpaired surrogates, within the default key limit with room to spare. */
    static boolean valid(String key) {
        if (key.isEmpty() || key.isBlank() || key.getBytes(StandardCharsets.UTF_8).length > 512) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
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
}
