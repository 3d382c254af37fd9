package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** How holds are split into getEphemerals requests that each fit the client's packet limit. */
class SessionNodesTest {

    @Test
    void tenThousandHoldsWithShortKeysFitOneRequestUnderTheDefaultLimit() {
        List<String> paths = paths(10_000, "leases:");
        List<SessionNodes.Group> groups = new ArrayList<>();
        SessionNodes.split(paths, "", SessionNodes.budget(new ZKClientConfig()), groups);
        assertThat(groups).hasSize(1);
        assertThat(groups.get(0).prefix()).isEqualTo("/mortise/locks/leases:");
    }

    @Test
    void groupsThatDoNotFitAreSplitIntoDisjointPrefixesThatEachFit() {
        List<String> paths = paths(5_000, "order:");
        paths.add("/mortise/locks/a/_c_00000000-0000-0000-0000-000000000000-lock-0000000001");
        paths = new ArrayList<>(new TreeSet<>(paths));
        int budget = 40_000;
        List<SessionNodes.Group> groups = new ArrayList<>();
        SessionNodes.split(paths, "/app5", budget, groups);

        assertThat(groups.size()).isGreaterThan(1);
        List<String> covered = new ArrayList<>();
        for (SessionNodes.Group group : groups) {
            long bytes = group.members().stream().mapToLong(p -> 4 + 5 + p.length()).sum();
            assertThat(bytes).as("bytes listed by prefix %s", group.prefix()).isLessThanOrEqualTo(budget);
            for (String path : paths) {
                // A prefix lists exactly its own group: nothing of another group is counted twice or missed.
                assertThat(path.startsWith(group.prefix())).isEqualTo(group.members().contains(path));
            }
            covered.addAll(group.members());
        }
        assertThat(covered).containsExactlyInAnyOrderElementsOf(paths);
    }

    @Test
    void oneHoldIsListedByItsOwnPath() {
        List<String> paths = paths(1, "k");
        List<SessionNodes.Group> groups = new ArrayList<>();
        SessionNodes.split(paths, "", 1 << 20, groups);
        assertThat(groups).extracting(SessionNodes.Group::prefix).containsExactly(paths.get(0));
    }

    @Test
    void keysThatDifferAtTheFirstCharacterAreListedByTheRootNotByAPrefixEndingInSlash() {
        // Issue 14, finding 10: the shared prefix "/mortise/locks/" is no legal path; the client
        // refused it on every renewal.
        for (List<String> keys : List.of(List.of("a", "b"), List.of(".a", ".b"), List.of("..a", "..b"),
                List.of("..a", ".b", "c"))) {
            List<String> paths = nodes(keys);
            for (String serverPrefix : List.of("", "/chroot", "/chroot/ns")) {
                List<SessionNodes.Group> groups = new ArrayList<>();
                SessionNodes.split(paths, serverPrefix, 1 << 20, groups);
                assertThat(groups).as("keys %s", keys).hasSize(1);
                assertThat(groups.get(0).prefix()).as("keys %s", keys).isEqualTo("/mortise/locks");
                assertThat(groups.get(0).members()).containsExactlyElementsOf(paths);
            }
        }
    }

    @Test
    void everyPrefixIsALegalPathAndListsExactlyItsOwnGroupForRandomKeysAndBudgets() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<String> keys = new ArrayList<>();
            int n = 1 + random.nextInt(60);
            for (int i = 0; i < n; i++) {
                keys.add(randomKey(random, keys));
            }
            List<String> paths = nodes(keys);
            String serverPrefix = random.nextBoolean() ? "" : "/chroot";
            long total = paths.stream().mapToLong(p -> 4 + serverPrefix.length() + p.length()).sum();
            // From everything in one answer down to a few nodes per answer.
            int budget = (int) Math.max(300, total / (1 + random.nextInt(20)));
            List<SessionNodes.Group> groups = new ArrayList<>();
            SessionNodes.split(paths, serverPrefix, budget, groups);

            List<String> covered = new ArrayList<>();
            for (SessionNodes.Group group : groups) {
                String asked = SessionNodes.serverPath(serverPrefix, group.prefix());
                assertThatCode(() -> PathUtils.validatePath(asked)).as("seed %d: prefix %s", seed, asked)
                        .doesNotThrowAnyException();
                if (group.members().size() > 1) {
                    long bytes = 64 + group.members().stream()
                            .mapToLong(p -> 4 + serverPrefix.length() + p.length()).sum();
                    assertThat(bytes).as("seed %d: bytes listed by prefix %s", seed, asked).isLessThanOrEqualTo(budget);
                }
                for (String path : paths) {
                    assertThat(path.startsWith(group.prefix())).as("seed %d: %s listed by %s", seed, path, asked)
                            .isEqualTo(group.members().contains(path));
                }
                covered.addAll(group.members());
            }
            assertThat(covered).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(paths);
        }
    }

    private static final String[] CHARS = {"a", "b", "z", "0", "/", ".", "..", "%", "#", "-", "_", "~", ":", " ",
            "é", "锁", "😀", "\t", "x"};

    private static String randomKey(Random random, List<String> earlier) {
        StringBuilder key = new StringBuilder();
        if (!earlier.isEmpty() && random.nextInt(3) == 0) {
            String other = earlier.get(random.nextInt(earlier.size()));
            key.append(other, 0, other.offsetByCodePoints(0, random.nextInt(other.codePointCount(0, other.length()) + 1)));
        }
        int length = 1 + random.nextInt(random.nextBoolean() ? 3 : 30);
        for (int i = 0; i < length; i++) {
            key.append(CHARS[random.nextInt(CHARS.length)]);
        }
        return key.toString();
    }

    /** One lock node per key (two for some), as the backend names them, sorted and distinct. */
    private static List<String> nodes(List<String> keys) {
        LockPaths lockPaths = new LockPaths("/mortise/locks");
        TreeSet<String> paths = new TreeSet<>();
        int i = 0;
        for (String key : keys) {
            paths.add(String.format("%s/_c_%08x-1111-2222-3333-444455556666-lock-%010d", lockPaths.parent(key), i * 7919, i));
            i++;
            if (i % 3 == 0) {
                paths.add(String.format("%s/_c_%08x-1111-2222-3333-444455556666-lock-%010d", lockPaths.parent(key),
                        i * 31, i));
            }
        }
        return new ArrayList<>(paths);
    }

    private static List<String> paths(int n, String keyPrefix) {
        TreeSet<String> paths = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            paths.add(String.format("/mortise/locks/%s%d/_c_%08x-1111-2222-3333-444455556666-lock-%010d", keyPrefix, i,
                    i * 7919, i));
        }
        return new ArrayList<>(paths);
    }
}
