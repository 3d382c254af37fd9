package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** How holds are split into getEphemerals requests that each fit the client's packet limit. */
class SessionNodesTest {

    @Test
    void tenThousandHoldsWithShortKeysFitOneRequestUnderTheDefaultLimit() {
        List<String> paths = paths(10_000, "leases:");
        List<SessionNodes.Group> groups = new ArrayList<>();
        SessionNodes.split(paths, 0, SessionNodes.budget(new ZKClientConfig()), groups);
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
        SessionNodes.split(paths, 5, budget, groups);

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
        SessionNodes.split(paths, 0, 1 << 20, groups);
        assertThat(groups).extracting(SessionNodes.Group::prefix).containsExactly(paths.get(0));
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
