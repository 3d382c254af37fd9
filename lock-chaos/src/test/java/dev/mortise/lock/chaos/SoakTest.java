package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The soak's flatness check, series and pictures on synthetic samples: no servers, no timing. */
class SoakTest {

    private static final Soak.Tolerance THREADS = Soak.TOLERANCES.get("THREADS");
    private static final Soak.Tolerance HEAP = Soak.TOLERANCES.get("HEAP_BYTES");

    @Test
    void aFlatCurveWithNoiseAndAStartUpClimbIsNoLeak() {
        // Start-up (the warm-up samples) climbs, then it stays about level with one busy minute.
        List<Long> threads = List.of(10L, 25L, 31L, 30L, 32L, 31L, 45L, 30L, 31L, 32L, 30L, 31L);
        assertThat(Soak.leak(threads, THREADS)).contains(false);
        List<Long> heap = List.of(5L << 20, 20L << 20, 21L << 20, 24L << 20, 19L << 20, 22L << 20, 23L << 20,
                21L << 20, 25L << 20, 20L << 20);
        assertThat(Soak.leak(heap, HEAP)).contains(false);
    }

    @Test
    void aSteadyClimbIsALeak() {
        List<Long> threads = new ArrayList<>();
        for (long minute = 0; minute < 12; minute++) {
            threads.add(30 + 2 * minute);
        }
        assertThat(Soak.leak(threads, THREADS)).contains(true);
        List<Long> heap = new ArrayList<>();
        for (long minute = 0; minute < 30; minute++) {
            heap.add((20L << 20) + minute * (2L << 20));
        }
        assertThat(Soak.leak(heap, HEAP)).as("2 MiB a minute for 30 minutes").contains(true);
    }

    @Test
    void tooFewSamplesAreNotJudged() {
        assertThat(Soak.leak(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), THREADS)).isEqualTo(Optional.empty());
    }

    @Test
    void resourceLinesBecomeOneCurvePerWorkerAndResourceAndLeaksAreNamed() {
        List<WorkerEvent> events = new ArrayList<>();
        for (int minute = 0; minute < 10; minute++) {
            events.add(new WorkerEvent("w0", minute, "THREADS", "-", 0, 30));
            events.add(new WorkerEvent("w1", minute, "THREADS", "-", 0, 30 + 5L * minute));
            events.add(new WorkerEvent("w0", minute, "VALID", "k", 1, 1));
        }
        Map<String, Map<String, List<Long>>> series = Soak.series(events);

        assertThat(series.keySet()).containsExactlyElementsOf(ResourceSampler.RESOURCES);
        assertThat(series.get("THREADS").get("w0")).hasSize(10).containsOnly(30L);
        assertThat(Soak.leaks(series)).singleElement().asString().startsWith("w1 THREADS grew");
        assertThat(Soak.judged(series)).isEqualTo(2);
        assertThat(Charts.soakSvg(series, "soak", 60)).startsWith("<svg").contains("<polyline").contains("9 min", ">w1<").endsWith("</svg>\n");
    }

    /** A run's result as RunResult.toJson writes it: it names its backend too. */
    private static String result(String backend) {
        return "{\"backend\":\"" + backend + "\",\"fault\":\"none\",\"keys\":[\"a\"],\"takeoverMs\":[1,2]}";
    }

    @Test
    void soaksRunAsSeparateCommandsDrawOnePictureOfAllTheirBackends() {
        Map<String, Map<String, List<Long>>> redis = Map.of("HEAP_BYTES", Map.of("w0", List.of(10L, 11L, 12L)),
                "THREADS", Map.of("w0", List.of(60L, 61L, 62L), "w1", List.of(63L, 64L)));
        Map<String, Map<String, List<Long>>> jdbc = Map.of("HEAP_BYTES", Map.of("w2", List.of(20L, 21L)));
        String first = Soak.soakJson(Duration.ofMinutes(30), Duration.ofMinutes(1), "a \"machine\"",
                List.of(Soak.backendJson("redis", List.of("w9 THREADS grew: [1, 2]"), redis, result("redis"))));
        String second = Soak.soakJson(Duration.ofMinutes(30), Duration.ofMinutes(1), "m",
                List.of(Soak.backendJson("etcd", List.of(), Map.of("HEAP_BYTES", Map.of("w0", List.of(5L, 6L))),
                                result("etcd")), Soak.backendJson("jdbc", List.of(), jdbc, result("jdbc"))));

        String svg = Soak.chartFromJson(List.of(first, second));

        assertThat(svg).startsWith("<svg").contains(">redis w0<", ">redis w1<", ">etcd w0<", ">jdbc w2<")
                .contains("30 min per backend; redis, etcd, jdbc").endsWith("</svg>\n");
        assertThat(svg.split("<polyline", -1)).hasSize(1 + 5);
        assertThatThrownBy(() -> Soak.chartFromJson(List.of("{}"))).hasMessageContaining("--soak-chart-from");
        assertThatThrownBy(() -> Soak.chartFromJson(List.of(first,
                first.replace("\"sampleEveryMs\":60000", "\"sampleEveryMs\":30000"))))
                .hasMessageContaining("--soak-sample");
    }

    @Test
    void soakLengthsParse() {
        assertThat(Soak.parse("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(Soak.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Soak.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThatThrownBy(() -> Soak.parse("30x")).hasMessageContaining("30m");
        assertThat(Soak.FAULTS).allMatch(f -> f.target() != Fault.Target.SERVER || f == Fault.SERVER_KILL);
    }

    @Test
    void theTakeoverChartHasABarPerRunWithTakeoversAndTheBoundForHolderFaults() {
        RunResult pause = new RunResult("redis", Fault.PAUSE, Workload.BASIC, 1, List.of("k"), "s", 10, 2, 2000, 1,
                10, 9, 1, 0, 0, 0, 0, 1, 100, 0, LedgerChecker.Clock.MONOTONIC, 1, 1,
                List.of(new LedgerChecker.Takeover(1800, 2000), new LedgerChecker.Takeover(2100, 2000)), 0, List.of());
        RunResult kill = new RunResult("etcd", Fault.SERVER_KILL, Workload.BASIC, 1, List.of("k"), "s", 10, 2, 2000,
                1, 10, 9, 1, 0, 0, 0, 0, 1, 100, 0, LedgerChecker.Clock.MONOTONIC, 0, 0,
                List.of(new LedgerChecker.Takeover(2500, 2000)), 0, List.of());
        RunResult none = new RunResult("etcd", Fault.NONE, Workload.BASIC, 1, List.of("k"), "s", 10, 2, 2000, 0, 10,
                9, 1, 0, 0, 0, 0, 1, 100, 0, LedgerChecker.Clock.MONOTONIC, 0, 0, List.of(), 0, List.of());

        List<Charts.TakeoverBar> bars = Charts.takeoverBars(List.of(pause, none, kill));
        assertThat(bars).containsExactly(new Charts.TakeoverBar("redis × pause × basic", 1800, 2100, 2, 3000),
                new Charts.TakeoverBar("etcd × server-kill × basic", 2500, 2500, 1, -1));
        String svg = Charts.takeoverSvg(bars, "t");
        assertThat(svg).contains("redis × pause × basic", "1800 / 2100 (2)", "stroke='#d62728'");
        assertThat(Charts.roundUp(3001)).isEqualTo(5000);
        // The same bars from the JSON a run writes, so a published run's chart can be drawn again.
        String json = new ReliabilityReport(List.of(pause, none, kill), List.of(),
                new ChaosRun.Settings(10, 2, 1, 2000, 300), "cmd", 1, List.of("k")).json();
        assertThat(Charts.takeoverBarsFromJson(json)).isEqualTo(bars);
        assertThat(Charts.roundUp(1000)).isEqualTo(1000);
    }
}
