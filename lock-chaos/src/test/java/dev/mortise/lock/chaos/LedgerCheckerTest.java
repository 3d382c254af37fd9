package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker's event-only figures on hand-made event lists: no servers, no timing. */
class LedgerCheckerTest {

    private static WorkerEvent ev(String worker, long at, String type, String key, long token) {
        return new WorkerEvent(worker, at, type, key, token, 0);
    }

    @Test
    void overlappingCriticalSectionsOfTwoWorkersOnOneKeyCountOnce() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 80, "WRITE_OK", "k", 2),
                // Another key, same time: not an overlap.
                ev("w2", 10, "ACQUIRED", "j", 1), ev("w2", 90, "WRITE_OK", "j", 1),
                // Later on k, after both ended: not an overlap.
                ev("w1", 200, "ACQUIRED", "k", 3), ev("w1", 300, "WRITE_OK", "k", 3));

        assertThat(HoldRules.overlaps(events)).isEqualTo(1);
    }

    @Test
    void aTokenGrantedTwiceForOneKeyIsCounted() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w1", 10, "ACQUIRED", "k", 2),
                ev("w2", 20, "ACQUIRED", "k", 2), ev("w2", 30, "ACQUIRED", "j", 2));

        assertThat(HoldRules.reusedTokens(events)).isEqualTo(1);
    }

    @Test
    void workerEventLinesParseAndOtherOutputIsIgnored() {
        assertThat(WorkerEvent.parse("w0", "EV 1700000000000 READ k 7 41"))
                .isEqualTo(new WorkerEvent("w0", 1700000000000L, "READ", "k", 7, 41));
        assertThat(WorkerEvent.parse("w0", "[main] WARN something")).isNull();
        assertThat(WorkerEvent.parse("w0", "EV not a number")).isNull();
    }

    @Test
    void faultLabelsRoundTrip() {
        for (Fault fault : Fault.values()) {
            assertThat(Fault.of(fault.label())).isEqualTo(fault);
        }
        assertThat(Fault.SERVER_KILL.label()).isEqualTo("server-kill");
    }

    @Test
    void aGrantInsideAnotherWorkersLiveHoldIsAFalseGrant() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_OK", "k", 1), ev("w0", 110, "RELEASED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2),
                // After w1's hold ended: a normal handover.
                ev("w0", 200, "ACQUIRED", "k", 3), ev("w0", 300, "WRITE_OK", "k", 3));

        assertThat(HoldRules.falseGrants(events, List.of())).hasSize(1)
                .first().asString().contains("w1 granted k token 2");
    }

    /**
     * A hold let go without a write (a deadlock victim's rollback, a cycle that timed out on a later key)
     * ends when its release goes out (RELEASING), not when its answer was logged: the next grant may
     * come in between. Found by the deadlock workload (redis, waiter-pause): "w0 granted s at …232
     * while w2 held it … to …233".
     */
    @Test
    void aGrantWhileAReleaseWithoutAWriteIsUnderWayIsNoFalseGrant() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "RELEASING", "k", 1), ev("w0", 102, "RELEASED", "k", 1),
                ev("w1", 101, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        assertThat(HoldRules.falseGrants(events, List.of())).isEmpty();

        List<WorkerEvent> early = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "RELEASING", "k", 1), ev("w0", 102, "RELEASED", "k", 1),
                ev("w1", 99, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        assertThat(HoldRules.falseGrants(early, List.of())).as("a grant before the release went out").hasSize(1);
    }

    @Test
    void aGrantAfterTheHolderWasStruckOrToldItLostTheLockIsNoFalseGrant() {
        List<WorkerEvent> lost = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 90, "LOST", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        assertThat(HoldRules.falseGrants(lost, List.of())).isEmpty();

        List<WorkerEvent> paused = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        InjectedFault pause = new InjectedFault(Fault.PAUSE, "w0", "k", 1, 10, 90);
        assertThat(HoldRules.falseGrants(paused, List.of(pause))).isEmpty();
    }

    @Test
    void takeoverIsMeasuredOnlyToAGranteeThatWasAlreadyWaiting() {
        InjectedFault kill = new InjectedFault(Fault.KILL, "w0", "k", 1, 1000, 1000);
        List<WorkerEvent> waiting = List.of(ev("w1", 500, "WAIT", "k", 0), ev("w1", 3000, "ACQUIRED", "k", 2));
        assertThat(VictimRules.takeovers(waiting, List.of(kill), 2000)).containsExactly(2000L);

        // w1 came for the key after w0's lease had run out: when it came is not how long the key stayed locked.
        List<WorkerEvent> late = List.of(ev("w1", 3500, "WAIT", "k", 0), ev("w1", 3510, "ACQUIRED", "k", 2));
        assertThat(VictimRules.takeovers(late, List.of(kill), 2000)).isEmpty();
    }

    @Test
    void runResultSeparatesSafetyFromOtherRulesAndLeavesTimingOutOfTheUntimedOnes() {
        RunResult slow = result(Fault.PAUSE, 0, 0, 0, List.of(5000L), 0);
        assertThat(slow.safe()).isTrue();
        assertThat(slow.passed()).isFalse();
        assertThat(slow.untimedViolations()).isEmpty();

        RunResult unsafe = result(Fault.PAUSE, 1, 0, 0, List.of(), 1);
        assertThat(unsafe.safetyViolations()).containsExactly("1 false grant(s)");
        assertThat(unsafe.untimedViolations()).contains("1 orphan(s) on the server", "onLost fired for 0 of 1 victims");
    }

    /** A redis run with one fault and the given false grants, validity overlaps, onLost, takeovers and orphans. */
    private static RunResult result(Fault fault, long falseGrants, long validityOverlaps, long onLost,
                                    List<Long> takeovers, long orphans) {
        return new RunResult("redis", fault, Workload.BASIC, 1, List.of("k"), "s", 10, 2, 1000, 1, 10, 9, 1, 0, 0,
                falseGrants, 0, 1, 100, validityOverlaps, LedgerChecker.Clock.MONOTONIC, 1,
                onLost == 0 && falseGrants == 0 ? 1 : onLost,
                takeovers.stream().map(t -> new LedgerChecker.Takeover(t, 1000)).toList(), orphans, List.of());
    }

    /** An event at {@code mono} nanos on the monotonic clock and {@code wallMicros} on the wall clock. */
    private static WorkerEvent at(String worker, long mono, long wallMicros, String type, String key, long token,
                                  long value) {
        return new WorkerEvent(worker, wallMicros / 1000, type, key, token, value, mono, wallMicros);
    }

    @Test
    void aHolderSeeingItsLeaseValidAfterAnotherGrantIsAValidityOverlapCountedOncePerPairOfHolds() {
        List<WorkerEvent> events = List.of(
                at("w0", 1_000, 1, "ACQUIRED", "k", 1, 0),
                at("w0", 2_000, 2, "VALID", "k", 1, 1),
                at("w1", 5_000, 5, "ACQUIRED", "k", 2, 0),
                // Sampled before w1's grant was confirmed: no overlap, whatever it says.
                at("w0", 4_999, 4, "VALID", "k", 1, 1),
                // After it: true twice (one overlap), false once (fine).
                at("w0", 5_001, 6, "VALID", "k", 1, 1),
                at("w0", 9_000, 9, "VALID", "k", 1, 1),
                at("w0", 9_500, 9, "VALID", "k", 1, 0),
                // Another key at the same time: not an overlap.
                at("w2", 6_000, 6, "VALID", "j", 3, 1), at("w2", 500, 0, "ACQUIRED", "j", 3, 0));

        List<String> found = HoldRules.validityOverlaps(events, LedgerChecker.Clock.MONOTONIC);

        assertThat(found).hasSize(1);
        assertThat(found.get(0)).contains("w0 saw isValid() true for \"k\" token 1 0.000 ms after w1's grant of token 2");
    }

    @Test
    void aGrantBeforeTheHoldersOwnGrantOrAFalseSampleIsNoValidityOverlap() {
        List<WorkerEvent> events = List.of(
                at("w1", 1_000, 1, "ACQUIRED", "k", 1, 0), at("w1", 2_000, 2, "RELEASED", "k", 1, 0),
                at("w0", 3_000, 3, "ACQUIRED", "k", 2, 0), at("w0", 4_000, 4, "VALID", "k", 2, 1),
                at("w2", 5_000, 5, "ACQUIRED", "k", 3, 0), at("w0", 6_000, 6, "VALID", "k", 2, 0));

        assertThat(HoldRules.validityOverlaps(events, LedgerChecker.Clock.MONOTONIC)).isEmpty();
    }

    @Test
    void clockSkewRunsAreJudgedOnTheWallClockBecauseLibfaketimeFakesTheMonotonicOneToo() {
        // w0 under libfaketime: its "monotonic" reads are its faked wall clock, nothing like w1's.
        List<WorkerEvent> events = List.of(
                at("w0", 1_795_000_000_000_000_000L, 1_000, "ACQUIRED", "k", 1, 0),
                at("w1", 5_000_000, 2_000, "ACQUIRED", "k", 2, 0),
                at("w0", 1_795_000_000_000_000_001L, 3_000, "VALID", "k", 1, 1));

        assertThat(HoldRules.validityOverlaps(events, LedgerChecker.Clock.WALL_MINUS_OFFSET)).hasSize(1);
        assertThat(LedgerChecker.Clock.forRun(Fault.CLOCK_SKEW)).isEqualTo(LedgerChecker.Clock.WALL_MINUS_OFFSET);
        assertThat(LedgerChecker.Clock.forRun(Fault.PAUSE)).isEqualTo(LedgerChecker.Clock.MONOTONIC);
    }

    @Test
    void aValidityOverlapIsUnsafeExceptWhereTheServerForgetsItsHolds() {
        assertThat(result(Fault.PAUSE, 0, 2, 0, List.of(), 0).safetyViolations())
                .containsExactly("2 validity overlap(s)");
        RunResult volatileServer = result(Fault.SERVER_KILL_VOLATILE, 0, 2, 0, List.of(), 0);
        assertThat(volatileServer.validityGuaranteeVoid()).isTrue();
        assertThat(volatileServer.safetyViolations()).isEmpty();
        assertThat(volatileServer.toJson()).contains("\"validityOverlaps\":2", "\"validityGuaranteeVoid\":true");
    }

    @Test
    void aHoldOfOneOfSeveralKeysEndsAtThatKeysWriteNotAtTheFirstWriteOfTheCycle() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "a", 1), ev("w0", 10, "ACQUIRED", "b", 1),
                ev("w0", 100, "WRITE_OK", "a", 1), ev("w0", 200, "WRITE_OK", "b", 1),
                // Granted b while w0 still held it, and w0 never lost it: a false grant.
                ev("w1", 150, "ACQUIRED", "b", 2), ev("w1", 300, "WRITE_OK", "b", 2));

        assertThat(HoldRules.holds(events)).extracting(HoldRules.Hold::to).containsExactly(100L, 200L, 300L);
        assertThat(HoldRules.falseGrants(events, List.of())).hasSize(1);
    }

    @Test
    void randomKeysAreReproducibleUnrelatedAndSurviveTheCommandLineAndTheEventLine() {
        List<String> keys = ChaosKeys.random(42, 50);

        assertThat(ChaosKeys.random(42, 50)).isEqualTo(keys);
        assertThat(Set.copyOf(keys)).hasSize(50);
        assertThat(keys).noneMatch(String::isBlank);
        assertThat(keys).anyMatch(k -> !Character.isLetterOrDigit(k.codePointAt(0)));
        assertThat(keys).anyMatch(k -> k.codePoints().anyMatch(Character::isSupplementaryCodePoint));
        assertThat(keys.stream().map(k -> k.substring(0, 1)).distinct().count()).isGreaterThan(25);
        assertThat(ChaosKeys.fromArgument(ChaosKeys.toArgument(keys))).isEqualTo(keys);
        for (String key : keys) {
            String line = "EV 1700000000000 READ " + ChaosKeys.encode(key) + " 7 41 123 1700000000000001";
            assertThat(WorkerEvent.parse("w0", line))
                    .isEqualTo(new WorkerEvent("w0", 1700000000000L, "READ", key, 7, 41, 123, 1700000000000001L));
        }
    }

    @Test
    void theReportsTableRowsHaveAsManyCellsAsItsHeaderWhateverTheKeyNames() {
        List<String> keys = List.of("a|b", "`tick`", "\"q\\");
        RunResult r = new RunResult("redis", Fault.SERVER_KILL_VOLATILE, Workload.MIXED, 7, keys, "s", 10, 2, 1000, 1,
                10, 9, 1, 0, 0, 0, 0, 1, 100, 2, LedgerChecker.Clock.MONOTONIC, 0, 0,
                List.of(new LedgerChecker.Takeover(5, 1000)), 0,
                List.of("validity overlap: w0 saw isValid() true for " + ChaosKeys.quoted(keys.get(1))));
        String md = new ReliabilityReport(List.of(r), List.of(), new ChaosRun.Settings(10, 2, 2, 1000, 300), "cmd", 7,
                keys).markdown();

        List<String> table = md.lines().filter(l -> l.startsWith("|")).toList();
        assertThat(table).hasSize(3);
        long cells = table.get(0).chars().filter(c -> c == '|').count();
        assertThat(table).allMatch(l -> l.chars().filter(c -> c == '|').count() == cells);
        assertThat(table.get(2)).contains("| mixed |", "| 2 (void) |");
        assertThat(md).contains("seed 7", "\"a\\u007cb\"");
    }

    @Test
    void ledgerModesParseAndTheWorkerIsToldWhichLedgerToUse() {
        for (LedgerMode mode : LedgerMode.values()) {
            assertThat(LedgerMode.of(mode.label())).isEqualTo(mode);
        }
        ChaosRun.Settings builtin = new ChaosRun.Settings(10, 2, 1, 1500, 300);
        assertThat(builtin.ledger()).as("the default").isEqualTo(LedgerMode.BUILTIN);
        assertThat(builtin.workerLedgerArgument()).isEqualTo("fenced");
        assertThat(builtin.withLedger(LedgerMode.GUARD).workerLedgerArgument()).isEqualTo("guard");
        assertThat(new ChaosRun.Settings(10, 2, 1, 1500, 300, false).workerLedgerArgument()).isEqualTo("unfenced");
        assertThat(new ChaosRun.Settings(10, 2, 1, 1500, 300, false).withLedger(LedgerMode.GUARD)
                .workerLedgerArgument()).as("the negative control stays unfenced").isEqualTo("unfenced");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LedgerMode.of("fence"))
                .hasMessageContaining("builtin").hasMessageContaining("guard");
    }

    @Test
    void theReportSaysWhichLedgerRefusedTheStaleWrites() {
        RunResult r = new RunResult("redis", Fault.PAUSE, Workload.BASIC, 7, List.of("k"), "s", 10, 2, 1000, 1,
                10, 9, 1, 0, 0, 0, 0, 1, 100, 0, LedgerChecker.Clock.MONOTONIC, 1, 1,
                List.of(new LedgerChecker.Takeover(5, 1000)), 0, List.of());
        ChaosRun.Settings settings = new ChaosRun.Settings(10, 2, 2, 1000, 300);

        ReliabilityReport guard = new ReliabilityReport(List.of(r), List.of(), settings.withLedger(LedgerMode.GUARD),
                "cmd", 7, List.of("k"));
        assertThat(guard.json()).contains("\"ledger\":\"guard\"");
        assertThat(guard.markdown()).contains("- Ledger: `--ledger guard`", "JdbcFenceGuard.check(connection, key, token)");
        ReliabilityReport builtin = new ReliabilityReport(List.of(r), List.of(), settings, "cmd", 7, List.of("k"));
        assertThat(builtin.json()).contains("\"ledger\":\"builtin\"");
        assertThat(builtin.markdown()).contains("- Ledger: `--ledger builtin`");
    }

    @Test
    void aTakeoverIsBoundedByTheLongestLeaseTheVictimsHoldAskedFor() {
        InjectedFault pause = new InjectedFault(Fault.PAUSE, "w0", "k", 1, 1000, 6000);
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), new WorkerEvent("w0", 500, "EXTENDED", "k", 1, 4000),
                ev("w1", 800, "WAIT", "k", 0), ev("w1", 4800, "ACQUIRED", "k", 2));

        assertThat(VictimRules.measuredTakeovers(events, List.of(pause), 2000))
                .containsExactly(new LedgerChecker.Takeover(3800, 4000));
        // Without the extend the same takeover is slow for a 2 s lease.
        RunResult slow = result(Fault.PAUSE, 0, 0, 0, List.of(3800L), 0);
        assertThat(slow.otherViolations()).containsExactly("takeover 3800 ms > the victim's lease 1000 ms + 1 s");
        assertThat(VictimRules.victimLeaseMs(List.of(new WorkerEvent("w0", 0, "EXTENDED", "k", 1, 1000)), pause,
                2000)).as("a shorter extend does not lower the bound").isEqualTo(2000);
    }

    @Test
    void aTokenGrantedAgainByAServerThatForgotItIsJudgedFromItsLatestGrant() {
        List<WorkerEvent> events = List.of(
                at("w1", 1_000, 1, "ACQUIRED", "k", 2, 0), at("w1", 2_000, 2, "RELEASED", "k", 2, 0),
                at("w0", 3_000, 3, "ACQUIRED", "k", 12, 0), at("w0", 4_000, 4, "RELEASED", "k", 12, 0),
                // The server restarted without its state: token 2 again, a hold after w0's.
                at("w1", 5_000, 5, "ACQUIRED", "k", 2, 0), at("w1", 6_000, 6, "VALID", "k", 2, 1));

        assertThat(HoldRules.validityOverlaps(events, LedgerChecker.Clock.MONOTONIC)).isEmpty();
    }

    /**
     * The CI failure on a fresh clone of 8aca959 (ZooKeeper, waiter-pause; the workers' own lines in
     * src/test/resources/ci-zookeeper-waiter-pause). w1 logged WAIT at ...0578 and ACQUIRED token 7
     * at ...5016, 4.4 s later, while w0 held token 19. Token 7 is the czxid of the node w1 created
     * before w0's first node (8), and w0 waited on it until w1's session expired: w1's grant was
     * made before the SIGSTOP, while the key was free, and only its line came after the CONT.
     * Every sample of it after the pause was false and its write was refused. The record of the
     * pause itself is not in the evidence; it is rebuilt from the run's settings (1.5 s lease, so
     * a 4 s pause) and the lines: it ended just before w1's next line.
     */
    @Test
    void aGrantLoggedAfterAPauseThatStruckItsWaitIsTimedAtThePause() throws Exception {
        List<WorkerEvent> events = ciWaiterPauseEvents();
        String key = events.stream().filter(e -> e.type().equals("ACQUIRED")).findFirst().orElseThrow().key();
        InjectedFault pause = new InjectedFault(Fault.WAITER_PAUSE, "w1", key, 0, 1795842361005L, 1795842365005L);

        // What CI reported, judging the grant by its line.
        assertThat(HoldRules.falseGrants(events, List.of(pause))).singleElement().asString()
                .contains("w1 granted").contains("token 7");
        assertThat(HoldRules.validityOverlaps(events, LedgerChecker.Clock.MONOTONIC)).hasSize(1);

        List<WorkerEvent> placed = PausedGrants.placed(events, List.of(pause));
        assertThat(HoldRules.falseGrants(placed, List.of(pause))).isEmpty();
        assertThat(HoldRules.validityOverlaps(placed, LedgerChecker.Clock.MONOTONIC)).isEmpty();
    }

    /** The same run, but w1 saw token 7 valid once after the pause: a grant on stale evidence, judged by its line. */
    @Test
    void aPausedWaitersGrantSeenValidAfterThePauseStaysAFalseGrant() throws Exception {
        List<WorkerEvent> events = new java.util.ArrayList<>(ciWaiterPauseEvents());
        WorkerEvent grant = events.stream().filter(e -> e.worker().equals("w1") && e.type().equals("ACQUIRED")
                && e.token() == 7).findFirst().orElseThrow();
        events.add(new WorkerEvent("w1", grant.at() + 5, "VALID", grant.key(), 7, 1, grant.mono() + 5_000_000,
                grant.wallMicros() + 5000));
        InjectedFault pause = new InjectedFault(Fault.WAITER_PAUSE, "w1", grant.key(), 0, 1795842361005L,
                1795842365005L);

        List<WorkerEvent> placed = PausedGrants.placed(events, List.of(pause));
        assertThat(HoldRules.falseGrants(placed, List.of(pause))).singleElement().asString()
                .contains("w1 granted").contains("token 7");
        // A pause that ended after the grant's line did not separate them: nothing is moved.
        InjectedFault later = new InjectedFault(Fault.WAITER_PAUSE, "w1", grant.key(), 0, 1795842361005L,
                grant.at() + 1);
        assertThat(PausedGrants.placed(ciWaiterPauseEvents(), List.of(later))).isEqualTo(ciWaiterPauseEvents());
    }

    private static List<WorkerEvent> ciWaiterPauseEvents() throws Exception {
        List<WorkerEvent> events = new java.util.ArrayList<>();
        for (String worker : List.of("w0", "w1")) {
            try (var in = LedgerCheckerTest.class.getResourceAsStream("/ci-zookeeper-waiter-pause/" + worker + ".out")) {
                for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                    WorkerEvent e = WorkerEvent.parse(worker, line);
                    if (e != null) {
                        events.add(e);
                    }
                }
            }
        }
        return events;
    }
}
