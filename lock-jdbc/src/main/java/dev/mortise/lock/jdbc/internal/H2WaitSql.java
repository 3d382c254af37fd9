package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW;

/**
 * H2: the marker of an exclusive request that waits, left by the same {@code MERGE} that tries to
 * take the row. Waiters poll with backoff, so nothing records them and nothing is notified.
 */
final class H2WaitSql extends MarkTemplate {

    /**
     * Over: key, owner, lease, original key, mark. The first matched branch is the exclusive take
     * ({@link H2LockSql#TAKE}), which also clears the request's own marker; the second marks a row
     * the take refused. Answers the row as the merge left it: only the take writes this request's
     * owner ({@link H2Merges}).
     */
    private static final String ACQUIRE_MARKING = """
            SELECT lock_owner, fencing_token, DATEDIFF(MILLISECOND, {NOW}, expires_at) FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS VARCHAR),
                             CAST(? AS BIGINT))) s(k, o, ms, orig, mark)
              ON l.lock_key = s.k
              WHEN MATCHED AND {TAKE} THEN UPDATE SET
            {TAKE_SET},
                shared_holds = NULL,
                waiting_writer = CASE WHEN l.waiting_writer = s.o THEN NULL ELSE l.waiting_writer END,
                writer_waits_until = CASE WHEN l.waiting_writer = s.o THEN NULL ELSE l.writer_waits_until END
              WHEN MATCHED THEN UPDATE SET waiting_writer = s.o, writer_waits_until = DATEADD(MILLISECOND, s.mark, {NOW})
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
                VALUES (s.k, s.o, {FIRST}, {NOW}, DATEADD(MILLISECOND, s.ms, {NOW}), s.orig))""";

    private final String acquireMarking;

    /** @param first the token of a new row, {@code next} that of a new holder of row {@code l} */
    H2WaitSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        this.acquireMarking = sql(ACQUIRE_MARKING.replace("{TAKE_SET}", H2LockSql.TAKE_SET)
                .replace("{TAKE}", H2LockSql.TAKE).replace("{FIRST}", first).replace("{NEXT}", next)
                .replace("{NOW}", NOW));
    }

    @Override
    public LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                          long markMillis, long[] requestedAt) throws SQLException {
        return H2Merges.onceMoreOnDuplicate(() -> {
            try (PreparedStatement statement = prepare(connection, acquireMarking)) {
                H2SharedSql.bind(statement, key, owner, leaseMillis);
                statement.setLong(5, markMillis);
                requestedAt[0] = System.nanoTime();
                try (ResultSet rows = statement.executeQuery()) {
                    if (!rows.next()) {
                        return LockSql.Outcome.busy(-1);
                    }
                    if (owner.equals(rows.getString(1))) {
                        return LockSql.Outcome.granted(rows.getLong(2));
                    }
                    long remaining = rows.getLong(3);
                    return LockSql.Outcome.busy(rows.wasNull() ? -1 : Math.max(0, remaining));
                }
            }
        });
    }
}
