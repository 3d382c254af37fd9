package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.tck.server.PostgresServer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two ledger modes on a real PostgreSQL ledger (no lock server, no worker JVMs): the same
 * interleavings of a paused holder and its successor give the same {@link LedgerChecker}
 * columns whether the ledger's own statement or {@code lock-fencing}'s guard refuses the stale
 * write, and in the guard mode the guard alone decides.
 */
class LedgerGuardModeTest {

    private static final String KEY = "κλειδί 🔒";

    private static PostgresServer server;
    private static Ledger ledger;
    private static JdbcFenceGuard guard;

    private final List<WorkerEvent> events = new ArrayList<>();

    @BeforeAll
    static void start() throws SQLException {
        server = new PostgresServer();
        server.start();
        ledger = Ledger.connect(server.jdbcUrl(), server.user());
        guard = Ledger.guard(server.jdbcUrl(), server.user());
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

    private Ledger.Read read(LedgerMode mode, String worker, long token) throws SQLException {
        Ledger.Read read = mode == LedgerMode.GUARD ? ledger.readGuarded(guard, KEY, token) : ledger.read(KEY, token);
        events.add(new WorkerEvent(worker, System.currentTimeMillis(), "READ", KEY, token, read.value()));
        return read;
    }

    private boolean write(LedgerMode mode, String worker, long token, Ledger.Read read) throws SQLException {
        boolean accepted = mode == LedgerMode.GUARD
                ? ledger.writeGuarded(guard, KEY, token, worker, read.value(), read.value() + 1, read.at())
                : ledger.write(KEY, token, worker, read.value(), read.value() + 1, read.at());
        events.add(new WorkerEvent(worker, System.currentTimeMillis(), accepted ? "WRITE_OK" : "WRITE_REJECTED", KEY,
                token, read.value() + 1));
        return accepted;
    }

    private RunResult check() throws SQLException {
        return LedgerChecker.check("test", Fault.PAUSE, "none", 1, 2, 1000, ledger.connection(), events, List.of(), 0);
    }

    private long value() throws SQLException {
        try (PreparedStatement s = ledger.connection().prepareStatement("SELECT value FROM ledger WHERE key = ?")) {
            s.setString(1, KEY);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private long fence() throws SQLException {
        try (PreparedStatement s = ledger.connection().prepareStatement(
                "SELECT token FROM " + Ledger.FENCE_TABLE + " WHERE resource = ?")) {
            s.setString(1, KEY);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /** The paused holder read before its successor read; it writes between the successor's read and write. */
    @ParameterizedTest
    @EnumSource(LedgerMode.class)
    void aPausedHoldersWriteAfterItsSuccessorReadIsRejectedAndLoggedInEitherMode(LedgerMode mode) throws Exception {
        Ledger.Read old = read(mode, "w0", 1);
        Ledger.Read successor = read(mode, "w1", 2);

        assertThat(write(mode, "w0", 1, old)).as("the paused holder's write").isFalse();
        assertThat(write(mode, "w1", 2, successor)).as("the successor's write").isTrue();

        RunResult result = check();
        assertThat(result.writeAttempts()).isEqualTo(2);
        assertThat(result.acceptedWrites()).isEqualTo(1);
        assertThat(result.staleWritesAttempted()).isEqualTo(1);
        assertThat(result.staleWritesAccepted()).isZero();
        assertThat(result.lostUpdates()).isZero();
        assertThat(result.evidence()).isEmpty();
        assertThat(value()).isEqualTo(1);
    }

    /** Serial holders, each one reading what the previous one wrote: every write accepted, nothing stale. */
    @ParameterizedTest
    @EnumSource(LedgerMode.class)
    void serialHoldersAreAllAcceptedInEitherMode(LedgerMode mode) throws Exception {
        for (long token = 1; token <= 5; token++) {
            Ledger.Read read = read(mode, "w" + token % 2, token);
            assertThat(write(mode, "w" + token % 2, token, read)).isTrue();
        }

        RunResult result = check();
        assertThat(result.acceptedWrites()).isEqualTo(5);
        assertThat(result.staleWritesAttempted()).isZero();
        assertThat(result.staleWritesAccepted()).isZero();
        assertThat(result.lostUpdates()).isZero();
        assertThat(value()).isEqualTo(5);
    }

    @Test
    void aRefusedGuardedWriteIsRolledBackAndLoggedAsRejectedWithTheLedgerUnchanged() throws Exception {
        Ledger.Read old = read(LedgerMode.GUARD, "w0", 1);
        Ledger.Read successor = read(LedgerMode.GUARD, "w1", 2);
        assertThat(write(LedgerMode.GUARD, "w1", 2, successor)).isTrue();

        assertThat(write(LedgerMode.GUARD, "w0", 1, old)).isFalse();

        assertThat(value()).as("the rolled-back write left the value").isEqualTo(1);
        assertThat(fence()).as("the fence holds the successor's token").isEqualTo(2);
        assertThat(ledger.writeLogged("w0", KEY, 1)).as("the refusal is logged").isTrue();
        assertThat(ledger.connection().getAutoCommit()).as("the ledger connection is back in autocommit").isTrue();
        RunResult result = check();
        assertThat(result.staleWritesAttempted()).isEqualTo(1);
        assertThat(result.staleWritesAccepted()).isZero();
        assertThat(result.lostUpdates()).isZero();
    }

    @Test
    void aStaleGuardedReadStillReturnsTheValueAndTheNewerFence() throws Exception {
        read(LedgerMode.GUARD, "w1", 2);

        Ledger.Read stale = ledger.readGuarded(guard, KEY, 1);

        assertThat(stale.value()).isZero();
        assertThat(stale.ledgerToken()).isEqualTo(2);
        assertThat(fence()).as("a refused read does not lower the fence").isEqualTo(2);
    }

    /** The guard mode's write has no token condition of its own: the ledger's token column does not refuse it. */
    @Test
    void inTheGuardModeTheGuardAloneDecides() throws Exception {
        // The builtin read raises the ledger's own token to 5; the fence table has not seen 5.
        ledger.read(KEY, 5);
        Ledger.Read read = ledger.readGuarded(guard, KEY, 2);

        assertThat(ledger.writeGuarded(guard, KEY, 2, "w0", read.value(), read.value() + 1, read.at()))
                .as("the builtin statement would refuse token 2 < 5; the guard accepts it").isTrue();
        assertThat(ledger.write(KEY, 2, "w0", 1, 2, read.at())).as("while the builtin write refuses it").isFalse();
    }

    /**
     * The checker compares a worker's READ time (whole milliseconds, truncated) with the
     * ledger's {@code written_at}: that must be truncated too, or a write logged at x.6 ms reads
     * as x+1 and a later read in millisecond x looks as if it came before the write - a stale
     * write invented (seen once in serialHoldersAreAllAcceptedInEitherMode).
     */
    @Test
    void aReadInTheSameMillisecondAfterAnAcceptedWriteIsNoStaleWrite() throws Exception {
        try (PreparedStatement s = ledger.connection().prepareStatement(
                "INSERT INTO ledger_log (key, worker, token, value_read, value_written, accepted, read_at, written_at)"
                        + " VALUES (?, 'w0', 1, 0, 1, TRUE, to_timestamp(1000.0006), to_timestamp(1000.0006))")) {
            s.setString(1, KEY);
            s.executeUpdate();
        }
        try (PreparedStatement s = ledger.connection().prepareStatement("UPDATE ledger SET value = 1 WHERE key = ?")) {
            s.setString(1, KEY);
            s.executeUpdate();
        }
        // The next holder's read, logged in the same millisecond (1 000 000 ms), after the write.
        events.add(new WorkerEvent("w1", 1_000_000, "READ", KEY, 2, 1));

        assertThat(check().staleWritesAccepted()).isZero();
    }

    @Test
    void resetEmptiesTheFenceTableForTheNextRunsFreshLockServer() throws Exception {
        read(LedgerMode.GUARD, "w0", 40);
        assertThat(fence()).isEqualTo(40);

        ledger.reset(List.of(KEY));

        assertThat(fence()).isEqualTo(-1);
        Ledger.Read read = ledger.readGuarded(guard, KEY, 1);
        assertThat(ledger.writeGuarded(guard, KEY, 1, "w0", read.value(), 1, read.at())).isTrue();
    }
}
