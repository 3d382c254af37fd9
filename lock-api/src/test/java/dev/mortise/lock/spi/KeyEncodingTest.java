package dev.mortise.lock.spi;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyEncodingTest {

    private static final List<String> TRICKY = List.of("a", "A", "a/b", "a%2Fb", "a%", "a#", "a#b", "a b", "a\tb",
            "{a}", "a{b}", "ä", "a\u0308", "日本", "\uD83D\uDD12", ".", "..", "a.", "a:b", "a~b", "%41", "A%",
            "a_b", "a-b", "\u0000", "a\nb");

    @Test
    void percentEncodingIsInjectiveOverTrickyKeys() {
        Map<String, String> seen = new HashMap<>();
        for (String key : TRICKY) {
            String encoded = KeyEncoding.percentEncode(key, KeyEncoding::isPlainChar);
            String earlier = seen.put(encoded, key);
            assertThat(earlier).as("'%s' and '%s' both encode to '%s'", earlier, key, encoded).isNull();
        }
    }

    @Test
    void encodedKeysUseOnlySafeCharactersAndNeverTheBoundedMarker() {
        for (String key : TRICKY) {
            String encoded = KeyEncoding.percentEncode(key, c -> c != '/' && c >= 0x20);
            assertThat(encoded).doesNotContain("/").doesNotContain("#");
            assertThat(encoded.chars().allMatch(c -> c >= 0x20 && c < 0x7f)).isTrue();
        }
        assertThat(KeyEncoding.percentEncode("a/b", KeyEncoding::isPlainChar)).isEqualTo("a%2Fb");
        assertThat(KeyEncoding.percentEncode("%", c -> true)).isEqualTo("%25");
    }

    @Test
    void unpairedSurrogatesAreRefusedNotFoldedIntoQuestionMarks() {
        assertThatThrownBy(() -> KeyEncoding.percentEncode("a\uD800", c -> true)).isInstanceOf(IllegalArgumentException.class);
        assertThat(KeyEncoding.percentEncode("a\uD83D\uDD12", KeyEncoding::isPlainChar)).isEqualTo("a%F0%9F%94%92");
    }

    @Test
    void boundedKeepsShortKeysAndHashesLongOnesDistinctly() {
        assertThat(KeyEncoding.bounded("short", 100)).isEqualTo("short");
        String longA = "x".repeat(300) + "a";
        String longB = "x".repeat(300) + "b";
        String a = KeyEncoding.bounded(longA, 100);
        String b = KeyEncoding.bounded(longB, 100);
        assertThat(a).hasSize(100).contains("#").startsWith("xxx");
        assertThat(a).isNotEqualTo(b);
        assertThat(KeyEncoding.bounded(longA, 100)).as("deterministic").isEqualTo(a);
        assertThatThrownBy(() -> KeyEncoding.bounded("x", 10)).isInstanceOf(IllegalArgumentException.class);
    }
}
