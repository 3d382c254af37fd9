package dev.mortise.lock.tck;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The property suite's keys are reproducible, valid, and varied where backends are sensitive. */
class PropertyKeysTest {

    @Test
    void sameSeedSameKeys() {
        assertThat(PropertyKeys.pool(new Random(7), 40)).isEqualTo(PropertyKeys.pool(new Random(7), 40));
    }

    @Test
    void keysAreDistinctValidAndVaried() {
        List<String> keys = PropertyKeys.pool(new Random(42), 300);
        assertThat(keys).hasSize(300).doesNotHaveDuplicates();
        Set<Integer> firsts = new HashSet<>();
        int sharingLongPrefix = 0;
        for (String key : keys) {
            assertThat(PropertyKeys.valid(key)).as("'%s'", key).isTrue();
            assertThat(key.length()).isBetween(1, 60);
            assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(512);
            firsts.add(key.codePointAt(0));
            for (String other : keys) {
                if (other != key && other.length() >= 8 && key.startsWith(other.substring(0, 8))) {
                    sharingLongPrefix++;
                    break;
                }
            }
        }
        assertThat(firsts).as("first characters").hasSizeGreaterThan(20);
        assertThat(firsts.stream().anyMatch(cp -> cp > 0x7f)).as("a non-ASCII first character").isTrue();
        assertThat(keys.stream().anyMatch(k -> k.codePoints().anyMatch(Character::isSupplementaryCodePoint)))
                .as("a surrogate pair").isTrue();
        assertThat(sharingLongPrefix).as("keys sharing an 8-char prefix with another").isGreaterThan(30);
    }
}
