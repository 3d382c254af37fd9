package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * MySQL and MariaDB: one {@code INSERT … SELECT … ON DUPLICATE KEY UPDATE} whose source rows are the
 * parts only when no key of the batch is held (checked in its {@code WHERE}, a locking read under
 * InnoDB's default REPEATABLE READ), with the single acquire's free condition and assignments. Its
 * affected-row count is 0 exactly when the check refused the batch: nothing else is sent then. When it
 * wrote, a second statement reads the rows now held by the parts' owners for their tokens (MySQL has
 * no {@code RETURNING}, and {@code LAST_INSERT_ID} carries one value). Exclusive parts only: a batch
 * with a shared part is left to the core's ordered path. The statement text has one placeholder row
 * per part (keys bound as UTF-8 bytes, as everywhere in this dialect).
 */
final class MySqlBatchSql extends Statements implements BatchSql {

    private static final String NOW = MySqlExpressions.NOW;
    private static final String FREE = MySqlLockSql.TAKE;

    /** Over: now, free, lease, first token, next token; then the parts' rows, then the keys of the check. */
    private static final String ACQUIRE_ALL = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            SELECT r.k, r.o, %4$s, %1$s, %3$s, r.orig FROM (%%s) r
            WHERE NOT EXISTS (SELECT 1 FROM ${table} h WHERE h.lock_key IN (%%s)
              AND h.lock_owner IS NOT NULL AND h.expires_at > %1$s)
            ON DUPLICATE KEY UPDATE
              fencing_token = IF(%2$s, IF(lock_owner <=> VALUES(lock_owner), fencing_token, %5$s), fencing_token),
              acquired_at = IF(%2$s, IF(lock_owner <=> VALUES(lock_owner), acquired_at, %1$s), acquired_at),
              lock_owner = IF(%2$s, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)""";

    private final String acquireAll;
    private final String tokens;

    /** @param first the token of a new row, {@code next} that of a new holder (as the single acquire) */
    MySqlBatchSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, true);
        String lease = NOW + " + INTERVAL (CAST(? AS SIGNED) * 1000) MICROSECOND";
        this.acquireAll = ACQUIRE_ALL.formatted(NOW, FREE, lease, first, next).replace("${table}", table.sql());
        this.tokens = "SELECT lock_key, fencing_token FROM " + table.sql()
                + " WHERE (lock_key, lock_owner) IN (%s) AND expires_at > " + NOW;
    }

    @Override
    public boolean accepts(List<Part> parts) {
        return parts.stream().noneMatch(Part::shared);
    }

    @Override
    public long[] acquireAll(Connection connection, List<Part> parts, long leaseMillis, long[] requestedAt)
            throws SQLException {
        int n = parts.size();
        String rows = "SELECT ? AS k, ? AS o, ? AS orig" + " UNION ALL SELECT ?, ?, ?".repeat(n - 1);
        String marks = String.join(", ", java.util.Collections.nCopies(n, "?"));
        long[] answer = new long[n];
        int written;
        try (PreparedStatement statement = prepare(connection, acquireAll.formatted(rows, marks))) {
            int index = 1;
            statement.setLong(index++, leaseMillis);
            for (Part part : parts) {
                setKey(statement, index++, part.key().value());
                statement.setString(index++, part.owner());
                statement.setString(index++, part.key().original());
            }
            for (Part part : parts) {
                setKey(statement, index++, part.key().value());
            }
            requestedAt[0] = System.nanoTime();
            written = statement.executeUpdate();
        }
        if (written == 0) {
            return answer; // a key was held: the check let no row through
        }
        Map<String, Integer> positions = new HashMap<>();
        HexFormat hex = HexFormat.of();
        String pairs = String.join(", ", java.util.Collections.nCopies(n, "(?, ?)"));
        try (PreparedStatement statement = prepare(connection, tokens.formatted(pairs))) {
            int index = 1;
            for (int i = 0; i < n; i++) {
                byte[] key = (byte[]) key(parts.get(i).key().value());
                positions.put(hex.formatHex(key), i);
                statement.setBytes(index++, key);
                statement.setString(index++, parts.get(i).owner());
            }
            try (ResultSet held = statement.executeQuery()) {
                while (held.next()) {
                    Integer position = positions.get(hex.formatHex(held.getBytes(1)));
                    if (position != null) {
                        answer[position] = held.getLong(2);
                    }
                }
            }
        }
        return answer;
    }

    @Override
    public String cost() {
        return "two statements (the write, then the read of the tokens); one when a key is held";
    }
}
