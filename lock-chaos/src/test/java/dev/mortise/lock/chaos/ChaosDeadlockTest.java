package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.PostgresServer;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CI form of the {@link Workload#DEADLOCK} workload (issue 31): three workers taking two of three
 * keys in random orders, so they deadlock and detection breaks the cycles, under a waiter's pause and
 * a waiter's network cut (each leaves a stale wait record behind while its owner's holds expire) and a
 * holder's pause. Every safety rule of the harness holds, deadlocks were broken, and no victim was
 * named through a cycle the run's history does not show ({@link DeadlockRules}). About 20 s a run.
 */
class ChaosDeadlockTest {

    private static final ChaosRun.Settings SETTINGS = new ChaosRun.Settings(8, 3, 2, 1500, 300);

    private static PostgresServer ledgerServer;

    @BeforeAll
    static void startLedger() {
        ledgerServer = new PostgresServer();
        ledgerServer.start();
    }

    @AfterAll
    static void stopLedger() {
        if (ledgerServer != null) {
            ledgerServer.close();
        }
    }

    static Stream<Arguments> faults() {
        return Stream.of(Arguments.of("redis", Fault.WAITER_PAUSE), Arguments.of("jdbc", Fault.WAITER_CUT),
                Arguments.of("etcd", Fault.PAUSE));
    }

    @ParameterizedTest(name = "{0} x {1} x deadlock")
    @MethodSource("faults")
    void deadlocksAreBrokenWithoutAFalseVictimOrABrokenRule(String backend, Fault fault) throws Exception {
        long seed = System.nanoTime();
        RunResult result;
        try (BackendServer server = BackendServer.start(backend, fault);
             Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
            result = ChaosRun.run(backend, server, ledger, ledgerServer.jdbcUrl(), fault, Workload.DEADLOCK, seed,
                    SETTINGS, Path.of("target", "chaos-ci-deadlock", backend + "-" + fault.label()),
                    ChaosRun.workerClasspath());
        }
        System.out.println(result.verdict() + " " + result.toJson());

        assertThat(result.writeAttempts()).as("the workers did work").isPositive();
        assertThat(result.faultsInjected()).as("a fault struck").isPositive();
        assertThat(result.figures().deadlockVictims()).as("deadlocks were broken").isPositive();
        assertThat(result.figures().falseVictims()).as("false victims; evidence: %s", result.evidence()).isZero();
        assertThat(result.untimedViolations()).as("rules broken; evidence: %s", result.evidence()).isEmpty();
    }
}
