package dev.mortise.lock.zookeeper;

import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keys become one legal path segment each, injectively; queue order is sequence order. */
class LockPathsTest {

    private final LockPaths paths = new LockPaths("/mortise/locks");

    @Test
    void everyKeyIsOneLegalSegmentAndDistinctKeysStayDistinct() {
        List<String> keys = List.of(".", "..", "%2E", "%2E%2E", "...", "a/b", "a%2Fb", "a", "A", "/", "//", "a/../b",
                "zookeeper", "日本", "\u0000", "\ud83d\udd12", "tab\there", "new\nline", "#", "x".repeat(512),
                "x".repeat(511) + "y", "日".repeat(170), "日".repeat(169) + "本", " ", "\u007f", "\ufff0");
        Set<String> segments = new HashSet<>();
        for (String key : keys) {
            String segment = LockPaths.segment(key);
            assertThat(segment).doesNotContain("/").isNotIn(".", "..").hasSizeLessThanOrEqualTo(240);
            PathUtils.validatePath(paths.parent(key));
            assertThat(segments.add(segment)).as("segment of '%s' is unique", key).isTrue();
        }
    }

    @Test
    void plainKeysStayReadable() {
        assertThat(LockPaths.segment("order:42")).isEqualTo("order:42");
        assertThat(LockPaths.segment("billing-run.v2")).isEqualTo("billing-run.v2");
        assertThat(LockPaths.segment("a/b")).isEqualTo("a%2Fb");
    }

    @Test
    void queueIsSortedBySequenceAndIgnoresForeignNodes() {
        List<String> children = List.of("_c_2f0e-lock-0000000012", "_c_aa01-lock-0000000003", "stray", "lock-",
                "_c_0000-lock-0000000007", "lock-abcdefghij");
        assertThat(LockPaths.sortedLockNodes(children))
                .containsExactly("_c_aa01-lock-0000000003", "_c_0000-lock-0000000007", "_c_2f0e-lock-0000000012");
    }

    @Test
    void sharedAndExclusiveNodesSortBySequenceNotByName() {
        // Curator's protected prefix is a random UUID: neither it nor the mode may decide the order.
        List<String> children = List.of("_c_ffff-shared-lock-0000000012", "_c_0000-lock-0000000013",
                "_c_aa01-shared-lock-0000000003", "_c_9999-lock-0000000007", "shared-lock-", "_c_1111-shared-lock-x");
        assertThat(LockPaths.sortedLockNodes(children)).containsExactly("_c_aa01-shared-lock-0000000003",
                "_c_9999-lock-0000000007", "_c_ffff-shared-lock-0000000012", "_c_0000-lock-0000000013");
    }

    @Test
    void theModeIsReadFromTheNodeName() {
        String uuid = "_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-";
        assertThat(LockPaths.isShared(uuid + LockPaths.nodeName(dev.mortise.lock.LockMode.SHARED) + "0000000001"))
                .isTrue();
        assertThat(LockPaths.isShared(uuid + LockPaths.nodeName(dev.mortise.lock.LockMode.EXCLUSIVE) + "0000000001"))
                .isFalse();
        assertThat(LockPaths.isShared("lock-0000000001")).isFalse();
        assertThat(LockPaths.anyExclusive(List.of(uuid + "shared-lock-0000000001", "stray", "lock-"))).isFalse();
        assertThat(LockPaths.anyExclusive(List.of(uuid + "shared-lock-0000000001", uuid + "lock-0000000002")))
                .isTrue();
    }

    @Test
    void rootPathsAreValidated() {
        assertThat(LockPaths.validateRoot("/a/b")).isEqualTo("/a/b");
        for (String bad : new String[] {null, "", " ", "/", "relative", "/trailing/", "/zookeeper", "/zookeeper/x", "/a//b"}) {
            assertThatThrownBy(() -> LockPaths.validateRoot(bad)).as("root '%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zookeeper");
        }
    }
}
