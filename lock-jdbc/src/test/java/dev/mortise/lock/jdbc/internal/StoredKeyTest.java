package dev.mortise.lock.jdbc.internal;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class StoredKeyTest {

    private static final int COLUMN = 100;

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void shortKeysAreStoredAsTheyAre() {
        StoredKey key = StoredKey.of("order:42 / ä 日本 \uD83D\uDD12", COLUMN);
        assertThat(key.value()).isEqualTo("order:42 / ä 日本 \uD83D\uDD12");
        assertThat(key.original()).isNull();
    }

    @Test
    void keysAsLongAsTheColumnAreHashedToExactlyItsLength() {
        String exact = "k".repeat(COLUMN);
        String longer = "k".repeat(COLUMN + 50);
        String multiByte = "日".repeat(60);
        for (String key : List.of(exact, longer, multiByte)) {
            StoredKey stored = StoredKey.of(key, COLUMN);
            assertThat(bytes(stored.value())).isEqualTo(COLUMN);
            assertThat(stored.value()).matches("(?s).*#[0-9a-f]{64}");
            assertThat(stored.original()).isEqualTo(key);
        }
        assertThat(StoredKey.of("k".repeat(COLUMN - 1), COLUMN).original()).as("one byte shorter is kept").isNull();
    }

    /** A kept key that looks exactly like a hashed one is still one byte shorter, so they never meet. */
    @Test
    void aKeptKeyCannotImitateAHashedOne() {
        StoredKey hashed = StoredKey.of("x".repeat(500), COLUMN);
        String imitation = hashed.value().substring(1);
        assertThat(StoredKey.of(imitation, COLUMN).value()).isEqualTo(imitation).isNotEqualTo(hashed.value());
        assertThat(StoredKey.of(hashed.value(), COLUMN).value()).as("the hashed form itself, given as a key")
                .isNotEqualTo(hashed.value());
    }

    @Test
    void keysNoDatabaseCanStoreAreHashedAndStayDistinct() {
        List<String> keys = List.of("a\u0000", "a?", "a\uD800", "a\uDC00", "a\uFFFD", "\u0000", "a\u0000b");
        Set<String> stored = new HashSet<>();
        for (String key : keys) {
            StoredKey value = StoredKey.of(key, COLUMN);
            assertThat(value.value()).doesNotContain("\u0000").doesNotContain("\uD800").doesNotContain("\uDC00");
            if (!key.equals("a?") && !key.equals("a\uFFFD")) {
                assertThat(value.original()).as("hashed, with a printable original").doesNotContain("\u0000");
            }
            stored.add(value.value());
        }
        assertThat(stored).hasSameSizeAs(keys);
    }

    @Test
    void aSplitSurrogatePairAtThePrefixEndIsNotCut() {
        String key = "\uD83D\uDD12".repeat(40);
        StoredKey stored = StoredKey.of(key, COLUMN);
        assertThat(bytes(stored.value())).isEqualTo(COLUMN);
        String value = stored.value();
        assertThat(new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).as("no lone surrogate")
                .isEqualTo(value);
    }
}
