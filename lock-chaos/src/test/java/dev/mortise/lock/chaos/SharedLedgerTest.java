package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.tck.server.PostgresServer;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared workload's ledger semantics on a real PostgreSQL ledger, judged by
 * {@link LedgerChecker#check} as a run is: a reader's fenced read shuts out a writer granted
 * before it (a lower token), lets one granted after it write, and a write landing between a
 * valid reader's two reads is flagged. Event times are a counter, not the clock: the steps'
 * order is what is judged.
 */
class SharedLedgerTest {

    private static final String KEY = "читать/писать 📖";

    private static PostgresServer server;
    private static Ledger ledger;

    private final List<WorkerEvent> events = new ArrayList<>();
    private long step = 1000;

    @BeforeAll
    static void start() throws SQLException {
        server = new PostgresServer();
        server.start();
        ledger = Ledger.connect(server.jdbcUrl(), server.user());
    }

    @AfterAll
    static void stop() throws SQLException {
        if (ledger != null) {
            ledger.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void reset() throws SQLException {
        ledger.reset(List.of(KEY));
    }

    private void log(String worker, String type, long token, long value) {
        step += 10;
        events.add(new WorkerEvent(worker, step, type, KEY, token, value));
    }

    private Ledger.Read read(String worker, String type, long token) throws SQLException {
        Ledger.Read read = ledger.read(KEY, token);
        log(worker, type, token, read.value());
        return read;
    }

    /** A writer's whole cycle: grant, fenced read, fenced write of value + 1, release. */
    private boolean writeCycle(String worker, long token) throws SQLException {
        log(worker, "ACQUIRED", token, 0);
        Ledger.Read read = read(worker, "READ", token);
        log(worker, "VALID", token, 1);
        boolean accepted = ledger.write(KEY, token, worker, read.value(), read.value() + 1, read.at());
        log(worker, accepted ? "WRITE_OK" : "WRITE_REJECTED", token, read.value() + 1);
        log(worker, "RELEASING", token, 0);
        log(worker, "RELEASED", token, 0);
        return accepted;
    }

    private RunResult check() throws SQLException {
        return LedgerChecker.check("test", Fault.NONE, Workload.SHARED, 1, List.of(KEY), "none", 1, 2, 1000,
                ledger.connection(), events, List.of(), 0);
    }

    @Test
    void aReaderFencesOutEarlierWritersAndLaterWritersFollowIt() throws SQLException {
        log("r", "ACQUIRED", 5, 0);
        log("r", HoldModes.SHARED, 5, 0);
        read("r", "READ", 5);
        read("r", "READ_AGAIN", 5);
        log("r", "VALID", 5, 1);
        log("r", "RELEASING", 5, 0);
        log("r", "RELEASED", 5, 0);
        // A writer granted before the reader (token 4, its lease long gone) may no longer write;
        // its write is the only record of it, as a paused holder's late write would be.
        assertThat(ledger.write(KEY, 4, "old", 0, 1, new java.sql.Timestamp(System.currentTimeMillis()))).isFalse();
        assertThat(writeCycle("w", 6)).isTrue();

        RunResult result = check();
        assertThat(result.safetyViolations()).isEmpty();
        assertThat(result.staleWritesAttempted()).isEqualTo(1);
        assertThat(result.acceptedWrites()).isEqualTo(1);
    }

    @Test
    void aWriteBetweenAValidReadersTwoReadsIsFlagged() throws SQLException {
        log("r", "ACQUIRED", 5, 0);
        log("r", HoldModes.SHARED, 5, 0);
        read("r", "READ", 5);
        // A writer granted while the reader holds the key: its token is above the reader's fence.
        assertThat(writeCycle("w", 6)).isTrue();
        read("r", "READ_AGAIN", 5);
        log("r", "VALID", 5, 1);
        log("r", "RELEASING", 5, 0);
        log("r", "RELEASED", 5, 0);

        RunResult result = check();
        assertThat(result.safe()).isFalse();
        assertThat(result.falseGrants()).isEqualTo(1);
        // The grant beside a valid reader, and the reader's torn read.
        assertThat(result.validityOverlaps()).isEqualTo(2);
        assertThat(result.evidence()).anyMatch(e -> e.startsWith("torn read: r held"))
                .anyMatch(e -> e.startsWith("false grant: w granted"));
    }
}
