package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command line of a chaos run: backend labels with their Redis variants ({@link Backends#parse}),
 * the options ({@link ChaosOptions}) and the rows they plan ({@link RunPlan}), and how the report's
 * header names the rows that ran shorter. No servers, no timing.
 */
class RunPlanTest {

    @Test
    void aRedisVariantIsABackendLabelOfItsOwnInCanonicalOrder() {
        assertThat(Backends.parse("redis/lettuce", false, false)).isEqualTo("redis/lettuce");
        assertThat(Backends.parse("redis/fair", false, false)).isEqualTo("redis/fair");
        assertThat(Backends.parse("redis/lettuce/fair", false, false)).isEqualTo("redis/lettuce/fair");
        assertThat(Backends.parse("redis/fair/lettuce", false, false)).isEqualTo("redis/lettuce/fair");
        assertThat(Backends.parse("redis", false, false)).isEqualTo("redis");
        assertThat(Backends.parse("zookeeper", false, false)).isEqualTo("zookeeper");
        assertThat(Backends.base("redis/lettuce/fair")).isEqualTo("redis");
        assertThat(Backends.isVariant("redis/fair")).isTrue();
        assertThat(Backends.isVariant("redis")).isFalse();
    }

    @Test
    void theSwitchesNameTheRedisRunsAndTheWorkloadsTheirLabels() {
        assertThat(Backends.label("redis", true, false)).isEqualTo("redis/lettuce");
        assertThat(Backends.label("redis", false, true)).isEqualTo("redis/fair");
        assertThat(Backends.label("redis", true, true)).isEqualTo("redis/lettuce/fair");
        assertThat(Backends.label("redis", false, false)).isEqualTo("redis");
        assertThat(Backends.label("etcd", true, true)).isEqualTo("etcd");
        assertThat(Backends.fileName("redis/lettuce/fair")).isEqualTo("redis-lettuce-fair");
        assertThatThrownBy(() -> Backends.create("etcd/fair", "http://127.0.0.1:1", Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only redis has variants");
        assertThatThrownBy(() -> Backends.create("redis/fast", "redis://127.0.0.1:1", Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Backends.isLettuce("lettuce")).isTrue();
        assertThat(Backends.isLettuce("redisson")).isFalse();
        assertThatThrownBy(() -> Backends.isLettuce("jedis")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Workload.of("shared")).isEqualTo(Workload.SHARED);
        assertThat(Workload.of("permits")).isEqualTo(Workload.PERMITS);
    }

    @Test
    void theRedisSwitchesAddTheirPartToARedisLabelOnly() {
        assertThat(Backends.parse("redis", true, false)).isEqualTo("redis/lettuce");
        assertThat(Backends.parse("redis/fair", true, false)).isEqualTo("redis/lettuce/fair");
        assertThat(Backends.parse("redis/lettuce", false, true)).isEqualTo("redis/lettuce/fair");
        assertThat(Backends.parse("redis/lettuce", true, false)).isEqualTo("redis/lettuce");
        assertThat(Backends.parse("etcd", true, true)).isEqualTo("etcd");
    }

    @Test
    void anUnknownBackendOrVariantIsRefused() {
        for (String bad : List.of("mysql", "etcd/fair", "jdbc/lettuce", "redis/fast", "redis/fair/fair", "redis/",
                "redis//fair", "Redis")) {
            assertThatThrownBy(() -> Backends.parse(bad, false, false)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void optionsTakeVariantLabelsBesideThePlainNames() {
        ChaosOptions options = ChaosOptions.parse("redis", "redis/fair/lettuce", "--seconds", "20", "jdbc",
                "--doc", "none", "redis/lettuce/fair");
        assertThat(options.backends()).containsExactly("redis", "redis/lettuce/fair", "jdbc");
        assertThat(options.seconds()).isEqualTo(20);
        assertThat(options.shortSeconds()).isEqualTo(RunPlan.SHORT_SECONDS);
        assertThat(options.doc()).isNull();
        assertThat(options.redisSwitches()).isFalse();
    }

    @Test
    void theSwitchesAloneNameTheRedisRunsOfTheDefaultBackends() {
        ChaosOptions options = ChaosOptions.parse("--redis-fair", "--redis-driver", "lettuce");
        assertThat(options.backends()).containsExactly("redis/lettuce/fair", "jdbc", "etcd", "zookeeper");
        assertThat(options.redisSwitches()).isTrue();
        assertThat(ChaosOptions.parse("redis", "--redis-driver", "redisson").backends()).containsExactly("redis");
    }

    @Test
    void aBadCommandLineIsRefusedBeforeAnythingRuns() {
        assertThatThrownBy(() -> ChaosOptions.parse("--secconds", "20")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChaosOptions.parse("redis", "--seconds")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChaosOptions.parse("redis/cluster")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChaosOptions.parse("--redis-driver", "jedis"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFullPlanRunsTheVariantsAndTheSharedAndPermitsWorkloadsEverywhereForTheShortSeconds() {
        List<RunPlan.Row> rows = RunPlan.of(ChaosOptions.parse());
        assertThat(RunPlan.defaultBackends()).containsExactly("redis", "redis/lettuce", "redis/fair",
                "redis/lettuce/fair", "jdbc", "etcd", "zookeeper");
        List<Fault> modeFaults = List.of(Fault.NONE, Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT);
        for (String backend : RunPlan.defaultBackends()) {
            for (Workload workload : List.of(Workload.SHARED, Workload.PERMITS)) {
                assertThat(rows).filteredOn(r -> r.backend().equals(backend) && r.workload() == workload)
                        .as(backend + " " + workload).extracting(RunPlan.Row::fault)
                        .containsExactlyElementsOf(modeFaults);
            }
        }
        for (String variant : Backends.REDIS_VARIANTS) {
            assertThat(rows).filteredOn(r -> r.backend().equals(variant) && r.workload() == Workload.BASIC)
                    .extracting(RunPlan.Row::fault).containsExactly(Fault.PAUSE, Fault.WAITER_PAUSE, Fault.NET_CUT,
                            Fault.WAITER_CUT, Fault.SERVER_KILL, Fault.SILENT_PARTITION);
            assertThat(rows).filteredOn(r -> r.backend().equals(variant))
                    .extracting(RunPlan.Row::workload).doesNotContain(Workload.MIXED, Workload.LEADER);
        }
        // The added rows: 7 labels x 2 workloads x 4 faults, and 3 variants x 6 faults; 15 s each.
        List<RunPlan.Row> added = rows.stream().filter(r -> Backends.isVariant(r.backend())
                || r.workload() == Workload.SHARED || r.workload() == Workload.PERMITS).toList();
        assertThat(added).hasSize(7 * 2 * 4 + 3 * 6).allMatch(r -> r.seconds() == RunPlan.SHORT_SECONDS);
        // Everything else is the plain backends' basic, mixed and leader rows, as before, for --seconds.
        List<RunPlan.Row> main = rows.stream().filter(r -> !added.contains(r)).toList();
        assertThat(main).allMatch(r -> r.seconds() == 30);
        assertThat(main).filteredOn(r -> r.backend().equals("jdbc") && r.workload() == Workload.BASIC)
                .extracting(RunPlan.Row::fault)
                .containsExactlyElementsOf(Fault.all().stream().filter(f -> f.appliesTo("jdbc")).toList());
        assertThat(main).filteredOn(r -> r.backend().equals("etcd") && r.workload() == Workload.LEADER)
                .extracting(RunPlan.Row::fault).containsExactlyElementsOf(Workload.LEADER.defaultFaults());
        assertThat(rows).doesNotHaveDuplicates();
    }

    @Test
    void theFullPlanOfGivenBackendsIsTheirPartAndAShortTrialStaysShort() {
        List<RunPlan.Row> rows = RunPlan.of(ChaosOptions.parse("redis/fair", "--seconds", "10"));
        assertThat(rows).hasSize(6 + 8).allMatch(r -> r.backend().equals("redis/fair") && r.seconds() == 10);
        assertThat(RunPlan.of(ChaosOptions.parse("etcd", "--short-seconds", "12")))
                .filteredOn(r -> r.workload() == Workload.PERMITS).allMatch(r -> r.seconds() == 12);
    }

    @Test
    void faultsOrWorkloadsGivenRunTheirCrossProductForTheSeconds() {
        List<RunPlan.Row> rows = RunPlan.of(ChaosOptions.parse("redis/lettuce", "etcd", "--faults", "pause,leader-kill",
                "--workloads", "shared,basic", "--seconds", "20"));
        assertThat(rows).extracting(RunPlan.Row::label).containsExactly(
                "redis/lettuce x pause x shared", "redis/lettuce x pause x basic",
                "etcd x pause x shared", "etcd x leader-kill x shared",
                "etcd x pause x basic", "etcd x leader-kill x basic");
        assertThat(rows).allMatch(r -> r.seconds() == 20);
        // --faults alone: the basic, mixed and leader workloads on the plain backends, as before.
        List<RunPlan.Row> guard = RunPlan.of(ChaosOptions.parse("--faults", "pause"));
        assertThat(guard).hasSize(4 * 3).extracting(RunPlan.Row::backend).doesNotContain("redis/fair");
    }

    @Test
    void theHeaderNamesTheRowsThatRanShorter() {
        ChaosRun.Settings settings = new ChaosRun.Settings(30, 3, 2, 2000, 300);
        List<RunResult> results = List.of(result("redis", Workload.BASIC, 30), result("redis", Workload.SHARED, 15),
                result("redis/fair", Workload.BASIC, 15), result("redis/fair", Workload.SHARED, 15),
                result("etcd", Workload.PERMITS, 15), result("etcd", Workload.BASIC, 30));
        assertThat(new ReliabilityReport(results, settings, "cmd").shorterRows())
                .isEqualTo(" (15 s for the 4 rows of `redis/fair` and of the shared and permits workloads)");
        assertThat(new ReliabilityReport(results.subList(0, 1), settings, "cmd").shorterRows()).isEmpty();
        assertThat(new ReliabilityReport(List.of(result("redis", Workload.BASIC, 30),
                result("redis", Workload.BASIC, 20)), settings, "cmd").shorterRows())
                .isEqualTo(" (20 s for 1 row(s) (each row's `seconds` in the JSON))");
        assertThat(new ReliabilityReport(results, settings, "cmd").markdown())
                .contains("3 worker JVMs for 30 s (15 s for the 4 rows of `redis/fair` and of the shared and permits "
                        + "workloads) on 2 keys");
    }

    private static RunResult result(String backend, Workload workload, int seconds) {
        return new RunResult(backend, Fault.NONE, workload, 1, List.of("k"), "s", seconds, 3, 2000, 0, 10, 10, 0, 0,
                0, 0, 0, 0, 100, 0, LedgerChecker.Clock.MONOTONIC, 0, 0, List.of(), 0, List.of());
    }
}
