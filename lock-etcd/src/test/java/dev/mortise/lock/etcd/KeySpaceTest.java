package dev.mortise.lock.etcd;

import dev.mortise.lock.etcd.internal.KeySpace;
import dev.mortise.lock.etcd.internal.LeaseKeeper;
import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Key encoding and TTL rounding, without a server. */
class KeySpaceTest {

    private static final List<String> KEYS = List.of("a", "a/b", "a/", "a%2Fb", "a%", "a~0", "a/b/c", "a b", "a\tb",
            "a\nb", "ä", "a\u0308", "日本", "\uD83D\uDD12", "{x}", "a#", "A", "/", "//", "x".repeat(512),
            "日".repeat(170));

    private final KeySpace keys = new KeySpace("ns/");

    @Test
    void noLockPrefixIsAPrefixOfAnotherLocksKeys() {
        for (String one : KEYS) {
            for (String other : KEYS) {
                if (one.equals(other)) {
                    continue;
                }
                ByteSequence prefix = keys.prefix(one);
                ByteSequence otherOwnKey = keys.ownKey(keys.prefix(other), "owner:1", 0);
                assertThat(otherOwnKey.startsWith(prefix)).as("'%s' vs '%s'", one, other).isFalse();
            }
        }
    }

    @Test
    void encodedKeysAreDistinctPlainAsciiWithOneSlash() {
        Set<ByteSequence> prefixes = new HashSet<>();
        for (String key : KEYS) {
            String prefix = keys.prefix(key).toString(StandardCharsets.UTF_8);
            assertThat(prefix).startsWith("ns/").endsWith("/");
            String encoded = prefix.substring(3, prefix.length() - 1);
            assertThat(encoded).doesNotContain("/").matches("[A-Za-z0-9%._:~-]+");
            prefixes.add(keys.prefix(key));
        }
        assertThat(prefixes).hasSize(KEYS.size());
    }

    @Test
    void ownKeysLiveUnderTheirLocksPrefix() {
        ByteSequence prefix = keys.prefix("a/b");
        assertThat(keys.ownKey(prefix, "c0ffee:1", 3).startsWith(prefix)).isTrue();
        assertThat(keys.ownKey(prefix, "c0ffee:1", 3)).isNotEqualTo(keys.ownKey(prefix, "c0ffee:1", 4));
    }

    @Test
    void readerKeysSortBeforeTheWritersRangeAndWriterKeysInsideIt() {
        for (String key : KEYS) {
            ByteSequence prefix = keys.prefix(key);
            byte[] writersFrom = KeySpace.writersFrom(prefix).getBytes();
            byte[] end = KeySpace.prefixEnd(prefix).getBytes();
            for (String owner : List.of("c0ffee:1", "%", "-", "~", "#", "$", "a b", "日", "ZZ")) {
                ByteSequence reader = keys.readerKey(prefix, owner, 0);
                ByteSequence writer = keys.ownKey(prefix, owner, 0);
                assertThat(reader.startsWith(prefix)).isTrue();
                assertThat(reader).isNotEqualTo(writer);
                assertThat(java.util.Arrays.compareUnsigned(reader.getBytes(), writersFrom)).as(owner).isNegative();
                assertThat(java.util.Arrays.compareUnsigned(writer.getBytes(), writersFrom)).as(owner).isPositive();
                assertThat(java.util.Arrays.compareUnsigned(writer.getBytes(), end)).as(owner).isNegative();
                assertThat(java.util.Arrays.compareUnsigned(reader.getBytes(), prefix.getBytes())).isPositive();
            }
        }
    }

    @Test
    void ttlsRoundUpToWholeSecondsNeverDown() {
        assertThat(LeaseKeeper.ttlSeconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(LeaseKeeper.ttlSeconds(Duration.ofSeconds(1))).isEqualTo(1);
        assertThat(LeaseKeeper.ttlSeconds(Duration.ofMillis(1001))).isEqualTo(2);
        assertThat(LeaseKeeper.ttlSeconds(Duration.ofNanos(2_000_000_001L))).isEqualTo(3);
        assertThat(LeaseKeeper.ttlSeconds(Duration.ofSeconds(30))).isEqualTo(30);
    }
}
