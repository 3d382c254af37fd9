package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.spi.SqlDatabase;
import dev.mortise.lock.spi.WaitRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the wait-record contract cannot see of the JDBC backend's store: expired rows are never read
 * but stay until the next write sweeps them (the database sweeps nothing itself); the wait table is
 * named from the lock table, so two table names keep apart, and comes with the lock table (an older
 * table gets it, a dropped one is created again, and without creation a missing one fails naming it);
 * how many statements a call of many holder ids sends; 8 KiB of 4-byte UTF-8; and a database that is
 * away failing the call with a {@link LockBackendException} naming the backend.
 */
@Timeout(120)
abstract class JdbcWaitRecordsTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private final List<JdbcLockBackend> backends = new ArrayList<>();

    protected abstract DataSource dataSource();

    protected abstract JdbcDialect dialect();

    /** A time a second before the database's clock, in SQL. */
    protected abstract String aSecondAgo();

    /** A data source of this dialect that nobody answers (a port nobody listens on). */
    protected abstract DataSource unreachable(Duration timeout) throws SQLException;

    /** Statements one publish or remove of many holder ids sends: the write, and the sweep where it cannot be one. */
    protected abstract int statementsPerWrite();

    @AfterEach
    void close() {
        backends.forEach(JdbcLockBackend::close);
    }

    private JdbcLockBackend backend(DataSource dataSource, String table, boolean create) {
        JdbcLockBackendBuilder builder = JdbcLockBackend.builder(dataSource).dialect(dialect()).createTableIfMissing(create);
        JdbcLockBackend backend = (table == null ? builder : builder.tableName(table)).build();
        backends.add(backend);
        return backend;
    }

    private WaitRecords store() {
        return backend(dataSource(), null, true).waitRecords().orElseThrow();
    }

    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    private static String table() {
        return "wr_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    @Test
    void anExpiredRowIsNeverReadAndStaysOnlyUntilTheNextWrite() throws Exception {
        WaitRecords writer = store();
        WaitRecords other = store();
        String expired = holderId();
        String revived = holderId();
        writer.publish(List.of(expired, revived), "n1", "old", LONG);
        execute("UPDATE mortise_locks_waits SET expires_at = " + aSecondAgo() + " WHERE holder_id IN ('" + expired
                + "', '" + revived + "')");
        assertThat(other.read(List.of(expired, revived))).as("expired by the database's clock").isEmpty();
        assertThat(rows("mortise_locks_waits", expired, revived)).as("reads write nothing").isEqualTo(2);
        writer.publish(List.of(revived), "n2", "new", LONG);
        assertThat(other.read(List.of(expired, revived))).as("an expired row written again is live again")
                .containsExactly(Map.entry(revived, "new"));
        assertThat(rows("mortise_locks_waits", expired)).as("the write swept the other expired row").isZero();
        execute("UPDATE mortise_locks_waits SET expires_at = " + aSecondAgo() + " WHERE holder_id = '" + revived + "'");
        other.remove(List.of(holderId()), "unrelated");
        assertThat(rows("mortise_locks_waits", revived)).as("a removal of other ids sweeps too").isZero();
    }

    @Test
    void theWaitTableIsNamedFromTheLockTableSoTwoNamesKeepApart() throws Exception {
        String table = table();
        JdbcLockBackend named = backend(dataSource(), table, true);
        assertThat(named.waitTableName()).isEqualTo(table + "_waits");
        String id = holderId();
        named.waitRecords().orElseThrow().publish(List.of(id), "n", "in " + table, LONG);
        assertThat(store().read(List.of(id))).as("the default table's records").isEmpty();
        assertThat(backend(dataSource(), table, false).waitRecords().orElseThrow().read(List.of(id)))
                .containsExactly(Map.entry(id, "in " + table));
        assertThat(rows(table + "_waits", id)).isEqualTo(1);
    }

    @Test
    void aLockTableOfAnEarlierVersionGetsItsWaitTableOnlyWhenCreationIsOn() throws Exception {
        String table = table();
        execute(Schema.ddl(SqlDatabase.valueOf(dialect().name()), TableName.of(table)));
        WaitRecords without = backend(dataSource(), table, false).waitRecords().orElseThrow();
        assertThatThrownBy(() -> without.publish(List.of(holderId()), "n", "t", LONG))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("'jdbc'").hasMessageContaining(table + "_waits");
        String id = holderId();
        backend(dataSource(), table, true).waitRecords().orElseThrow().publish(List.of(id), "n", "t", LONG);
        assertThat(without.read(List.of(id))).containsExactly(Map.entry(id, "t"));
    }

    @Test
    void aWaitTableDroppedUnderARunningBackendIsCreatedAgain() throws Exception {
        String table = table();
        WaitRecords records = backend(dataSource(), table, true).waitRecords().orElseThrow();
        records.publish(List.of(holderId()), "n", "t", LONG);
        execute("DROP TABLE " + table + "_waits");
        String id = holderId();
        records.publish(List.of(id), "n", "again", LONG);
        assertThat(records.read(List.of(id))).containsExactly(Map.entry(id, "again"));
    }

    @Test
    void manyHolderIdsTakeOneReadAndOneWriteWithItsSweep() {
        RecordingDataSource recording = new RecordingDataSource(dataSource());
        WaitRecords records = backend(recording, null, true).waitRecords().orElseThrow();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(holderId());
        }
        recording.statements.clear();
        records.publish(ids, "n", "t", LONG);
        assertThat(recording.statements).as("publish").hasSize(statementsPerWrite());
        recording.statements.clear();
        assertThat(records.read(ids)).hasSize(100);
        assertThat(recording.statements).as("read").hasSize(1);
        recording.statements.clear();
        records.remove(ids, "n");
        assertThat(recording.statements).as("remove").hasSize(statementsPerWrite());
        assertThat(records.read(ids)).isEmpty();
    }

    @Test
    void eightKibOfFourByteCharactersRoundTrip() {
        WaitRecords records = store();
        String text = "\uD83D\uDD12".repeat(2048);
        String id = holderId();
        records.publish(List.of(id, id), "n", text, LONG);
        assertThat(store().read(List.of(id, id))).containsExactly(Map.entry(id, text));
        records.remove(List.of(id), "n");
    }

    @Test
    void aDatabaseThatIsAwayFailsEachCallNamingTheBackendAndTheTable() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        JdbcLockBackend away = JdbcLockBackend.builder(unreachable(timeout)).dialect(dialect())
                .operationTimeout(timeout).build();
        backends.add(away);
        WaitRecords records = away.waitRecords().orElseThrow();
        List<String> ids = List.of(holderId());
        for (Runnable call : List.<Runnable>of(() -> records.publish(ids, "n", "t", LONG), () -> records.read(ids),
                () -> records.remove(ids, "n"))) {
            assertThatThrownBy(call::run).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("'jdbc'").hasMessageContaining("mortise_locks_waits")
                    .satisfies(e -> assertThat(((LockBackendException) e).backend()).isEqualTo("jdbc"));
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute(sql);
        }
    }

    private int rows(String table, String... ids) throws SQLException {
        String marks = String.join(", ", java.util.Collections.nCopies(ids.length, "?"));
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE holder_id IN (" + marks + ")")) {
            for (int i = 0; i < ids.length; i++) {
                s.setString(i + 1, ids[i]);
            }
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }
}
