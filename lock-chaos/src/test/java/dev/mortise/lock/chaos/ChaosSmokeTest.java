package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.PostgresServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The CI version of the chaos run: Redis, two worker JVMs on one key, each pause striking a
 * holder inside its critical section for more than twice its lease. Fails on any safety
 * violation. With one key the other worker is always waiting for that key, so it takes over
 * during the pause and reads with a higher token; the paused holder's write after SIGCONT is
 * then rejected - which makes "the fault bit" deterministic enough to assert (at least once
 * over the run, a wide margin).
 */
class ChaosSmokeTest {

    @Test
    void pausedRedisHoldersNeverCorruptTheFencedLedger() throws Exception {
        ChaosRun.Settings settings = new ChaosRun.Settings(16, 2, 1, 1500, 300);
        try (PostgresServer ledgerServer = new PostgresServer();
             BackendServer redis = BackendServer.start("redis")) {
            ledgerServer.start();
            try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
                RunResult result = ChaosRun.run("redis", redis.target(), ledger, ledgerServer.jdbcUrl(), Fault.PAUSE,
                        settings, Path.of("target/chaos-smoke"), ChaosRun.workerClasspath());
                System.out.println(result.toJson());

                assertThat(result.writeAttempts()).as("the workers did work").isPositive();
                assertThat(result.faultsInjected()).as("at least one pause struck a holder").isPositive();
                assertThat(result.staleWritesAccepted()).as("stale writes accepted").isZero();
                assertThat(result.lostUpdates()).as("lost updates").isZero();
                assertThat(result.staleWritesAttempted()).as("the fault bit: a paused holder's write was rejected")
                        .isPositive();
            }
        }
    }
}
