package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.SqlDatabase;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Reads one key's row for {@link dev.mortise.lock.spi.LockBackend#inspect}: one SELECT by
 * primary key that also unnests the row's readers ({@code shared_holds}) and measures every
 * expiry against the database's clock, as the lock statements do; no application time is
 * sent. Read-only (a plain SELECT in autocommit: no row lock, no write, no NOTIFY).
 *
 * <p>What it reports: an exclusive hold ({@code lock_owner} not {@code '(shared)'}, unexpired)
 * with its owner, the row's {@code fencing_token} and the time left to {@code expires_at}; a
 * shared hold ({@code lock_owner = '(shared)'}, unexpired) as one holder per unexpired reader
 * entry, each with its own time left and no token (the row keeps only the latest grant's
 * token, not each reader's). Expired holds and entries are free. Waiters are not reported: the
 * row keeps at most one waiting writer's marker (several writers overwrite it, and waiting
 * readers leave nothing), so it cannot count them. Immutable and thread-safe.
 */
public final class InspectSql {

    private static final String SHARED = SharedSql.SHARED_OWNER_SQL;

    private final String select;
    private final String legacySelect;
    private final boolean binaryKey;
    private final boolean readerArray;
    private final int queryTimeoutSeconds;

    /**
     * Over one parameter, the stored key. Columns: lock_owner, fencing_token, whether the row's
     * hold is unexpired (1/0), µs to expires_at, and per unexpired reader entry (else NULL): its
     * owner and µs to its expiry.
     */
    private static final String POSTGRES = """
            SELECT t.lock_owner, t.fencing_token,
              CASE WHEN t.lock_owner IS NOT NULL AND t.expires_at > CURRENT_TIMESTAMP THEN 1 ELSE 0 END,
              CAST(FLOOR(EXTRACT(EPOCH FROM (t.expires_at - CURRENT_TIMESTAMP)) * 1000000) AS BIGINT),
              e.key, CAST(e.value AS BIGINT) - %1$s
            FROM ${table} t LEFT JOIN LATERAL jsonb_each(t.shared_holds) e
              ON t.lock_owner = %2$s AND CAST(e.value AS BIGINT) > %1$s
            WHERE t.lock_key = ?""";

    private static final String MYSQL = """
            SELECT t.lock_owner, t.fencing_token,
              CASE WHEN t.lock_owner IS NOT NULL AND t.expires_at > UTC_TIMESTAMP(6) THEN 1 ELSE 0 END,
              TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), t.expires_at),
              j.o, j.e - %1$s
            FROM ${table} t LEFT JOIN JSON_TABLE(t.shared_holds, '$[*]' COLUMNS (o VARCHAR(255) CHARACTER SET utf8mb4
              PATH '$[0]', e BIGINT PATH '$[1]')) j ON t.lock_owner = %2$s AND j.e > %1$s
            WHERE t.lock_key = ?""";

    /**
     * H2 cannot join the reader array of a row it reads, so its unexpired entries come back as
     * one array (each entry its expiry in µs as 19 digits, then the owner, as {@link H2SharedSql}
     * stores them) next to the database's clock in µs; the same walk by index as its statements.
     */
    private static final String H2 = """
            SELECT t.lock_owner, t.fencing_token,
              CASE WHEN t.lock_owner IS NOT NULL AND t.expires_at > CURRENT_TIMESTAMP THEN 1 ELSE 0 END,
              DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, t.expires_at),
              CASE WHEN t.lock_owner = %2$s THEN (SELECT ARRAY_AGG(t.shared_holds[i.X] ORDER BY i.X)
                FROM SYSTEM_RANGE(1, %3$d) i WHERE i.X <= CARDINALITY(t.shared_holds)
                AND CAST(SUBSTRING(t.shared_holds[i.X], 1, 19) AS BIGINT) > %1$s) END,
              %1$s
            FROM ${table} t
            WHERE t.lock_key = ?""";

    public InspectSql(SqlDatabase dialect, TableName table, int queryTimeoutSeconds) {
        String text = switch (dialect) {
            case POSTGRESQL -> POSTGRES.formatted(PostgresExpressions.NOW_US, SHARED);
            case MYSQL -> MYSQL.formatted(MySqlExpressions.NOW_US, SHARED);
            case H2 -> H2.formatted(H2Expressions.NOW_US, SHARED, H2Expressions.MAX_READERS);
        };
        String now = switch (dialect) {
            case POSTGRESQL, H2 -> "CURRENT_TIMESTAMP";
            case MYSQL -> "UTC_TIMESTAMP(6)";
        };
        String remaining = switch (dialect) {
            case POSTGRESQL -> "CAST(FLOOR(EXTRACT(EPOCH FROM (expires_at - CURRENT_TIMESTAMP)) * 1000000) AS BIGINT)";
            case MYSQL -> "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)";
            case H2 -> "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";
        };
        this.select = text.replace("${table}", table.sql());
        // A table of the previous version has no reader columns, so no shared holds.
        this.legacySelect = ("SELECT lock_owner, fencing_token, CASE WHEN lock_owner IS NOT NULL AND expires_at > " + now
                + " THEN 1 ELSE 0 END, " + remaining + ", NULL, NULL FROM ${table} WHERE lock_key = ?")
                .replace("${table}", table.sql());
        this.binaryKey = dialect == SqlDatabase.MYSQL;
        this.readerArray = dialect == SqlDatabase.H2;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    /** The key's state, from one SELECT of its row ({@code storedKey} as {@link StoredKey#value()}). */
    public KeyState inspect(Connection connection, String storedKey) throws SQLException {
        try {
            return read(connection, select, storedKey);
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            return read(connection, legacySelect, storedKey);
        }
    }

    private KeyState read(Connection connection, String sql, String storedKey) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            if (binaryKey) {
                statement.setBytes(1, storedKey.getBytes(StandardCharsets.UTF_8));
            } else {
                statement.setString(1, storedKey);
            }
            try (ResultSet rows = statement.executeQuery()) {
                List<KeyState.Holder> readers = new ArrayList<>();
                KeyState.Holder writer = null;
                while (rows.next()) {
                    String owner = rows.getString(1);
                    long token = rows.getLong(2);
                    boolean live = rows.getInt(3) == 1;
                    if (!live || owner == null) {
                        continue;
                    }
                    if (!SharedSql.SHARED_OWNER.equals(owner)) {
                        writer = new KeyState.Holder(owner, OptionalLong.of(token), remaining(rows.getLong(4)));
                        continue;
                    }
                    if (readerArray) {
                        readEntries(rows, readers);
                        continue;
                    }
                    String reader = rows.getString(5);
                    if (reader != null) {
                        readers.add(new KeyState.Holder(reader, OptionalLong.empty(), remaining(rows.getLong(6))));
                    }
                }
                if (writer != null) {
                    return new KeyState(LockMode.EXCLUSIVE, List.of(writer), OptionalInt.empty());
                }
                if (!readers.isEmpty()) {
                    return new KeyState(LockMode.SHARED, readers, OptionalInt.empty());
                }
                return KeyState.free(OptionalInt.empty());
            }
        }
    }

    /** H2's unexpired entries ({@code <19-digit expiry µs><owner>}) against its clock (column 6). */
    private static void readEntries(ResultSet rows, List<KeyState.Holder> readers) throws SQLException {
        java.sql.Array entries = rows.getArray(5);
        if (entries == null) {
            return;
        }
        long nowMicros = rows.getLong(6);
        for (Object entry : (Object[]) entries.getArray()) {
            String text = (String) entry;
            readers.add(new KeyState.Holder(text.substring(19), OptionalLong.empty(),
                    remaining(Long.parseLong(text.substring(0, 19)) - nowMicros)));
        }
    }

    private static Optional<Duration> remaining(long micros) {
        return Optional.of(Duration.of(Math.max(1, micros), ChronoUnit.MICROS));
    }
}
