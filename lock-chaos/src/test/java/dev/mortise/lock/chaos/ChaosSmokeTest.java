package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.PostgresServer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CI version of the chaos run: Redis, two worker JVMs on one key, each pause striking a
 * holder inside its critical section for more than twice its lease. Fails on any safety
 * violation. With one key the other worker is always waiting for that key, so it takes over
 * during the pause and reads with a higher token; the paused holder's write after SIGCONT is
 * then rejected - which makes "the fault bit" deterministic enough to assert (at least once
 * over the run, a wide margin). A second, shorter run with fencing switched off checks that
 * the checker does see the damage.
 */
class ChaosSmokeTest {

    private static PostgresServer ledgerServer;
    private static BackendServer redis;

    @BeforeAll
    static void startServers() {
        ledgerServer = new PostgresServer();
        ledgerServer.start();
        redis = BackendServer.start("redis");
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (ledgerServer != null) {
            ledgerServer.close();
        }
    }

    private static RunResult run(ChaosRun.Settings settings, String dir) throws Exception {
        try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
            RunResult result = ChaosRun.run("redis", redis, ledger, ledgerServer.jdbcUrl(), Fault.PAUSE,
                    settings, Path.of("target", dir), ChaosRun.workerClasspath());
            System.out.println(result.toJson());
            return result;
        }
    }

    @Test
    void pausedRedisHoldersNeverCorruptTheFencedLedger() throws Exception {
        RunResult result = run(new ChaosRun.Settings(16, 2, 1, 1500, 300), "chaos-smoke");

        assertThat(result.writeAttempts()).as("the workers did work").isPositive();
        assertThat(result.faultsInjected()).as("at least one pause struck a holder").isPositive();
        assertThat(result.staleWritesAccepted()).as("stale writes accepted").isZero();
        assertThat(result.lostUpdates()).as("lost updates").isZero();
        assertThat(result.orphans()).as("lock keys left once every worker ended and a lease ran out").isZero();
        assertThat(result.staleWritesAttempted()).as("the fault bit: a paused holder's write was rejected")
                .isPositive();
    }

    /**
     * Negative control: the same run with a ledger that accepts every write must show the
     * damage, or the green test above would prove nothing about the checker.
     */
    @Test
    void withoutFencingTheCheckerSeesThePausedHoldersDamage() throws Exception {
        RunResult result = run(new ChaosRun.Settings(10, 2, 1, 1500, 300, false), "chaos-smoke-unfenced");

        assertThat(result.faultsInjected()).as("a pause struck a holder").isPositive();
        assertThat(result.staleWritesAttempted()).as("nothing is rejected without fencing").isZero();
        assertThat(result.lostUpdates()).as("lost updates the checker must see").isPositive();
        assertThat(result.staleWritesAccepted()).as("stale writes the checker must see").isPositive();
        assertThat(result.safe()).isFalse();
    }
}
