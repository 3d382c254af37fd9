package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * MySQL and MariaDB: acquire is one {@code INSERT … ON DUPLICATE KEY UPDATE} whose
 * answer travels in the OK packet's last-insert-id, so it takes one round trip with no
 * {@code RETURNING} (MySQL has none) and no multi-statement text: the statement calls
 * {@code LAST_INSERT_ID(token)} when it grants and {@code LAST_INSERT_ID(2^62 + holder's
 * remaining microseconds)} when busy, and the driver hands the value back as the
 * generated key. Fencing tokens stay below 2^62, so the two never meet.
 *
 * <p>The assignments run left to right, each seeing the columns already assigned, so
 * the order matters: token and acquired-at are decided on the old owner and expiry, then
 * the owner is taken, and the expiry moves only if the owner is now ours.
 *
 * <p>Time is {@code UTC_TIMESTAMP(6)}, never {@code NOW()}: {@code DATETIME} columns
 * carry no zone, and sessions with different time zones must agree on expiry.
 */
final class MySqlLockSql extends SqlTemplate {

    static final long BUSY = 1L << 62;
    private static final String NOW = "UTC_TIMESTAMP(6)";
    private static final String FREE = "(lock_owner IS NULL OR expires_at <= " + NOW
            + " OR lock_owner = VALUES(lock_owner))";

    private final String acquire = sql("""
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            VALUES (?, ?, LAST_INSERT_ID(1), %1$s, %1$s + INTERVAL ? MICROSECOND, ?)
            ON DUPLICATE KEY UPDATE
              fencing_token = IF(%2$s,
                LAST_INSERT_ID(fencing_token + IF(lock_owner <=> VALUES(lock_owner), 0, 1)),
                IF(LAST_INSERT_ID(%3$d + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, %1$s, expires_at))) > 0,
                   fencing_token, fencing_token)),
              acquired_at = IF(%2$s, IF(lock_owner <=> VALUES(lock_owner), acquired_at, %1$s), acquired_at),
              lock_owner = IF(%2$s, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)"""
            .formatted(NOW, FREE, BUSY));

    private final String renew = sql("UPDATE ${table} SET expires_at = " + NOW + " + INTERVAL ? MICROSECOND"
            + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW);

    private final String release = sql("UPDATE ${table} SET lock_owner = NULL, expires_at = NULL"
            + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW);

    MySqlLockSql(TableName table, int queryTimeoutSeconds) {
        super(table, queryTimeoutSeconds);
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquire)) {
            statement.setBytes(1, bytes(key.value()));
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis * 1000);
            statement.setString(4, key.original());
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            try (ResultSet keys = statement.getGeneratedKeys()) {
                if (!keys.next()) {
                    return Outcome.busy(-1);
                }
                long answer = keys.getLong(1);
                if (answer >= BUSY) {
                    return Outcome.busy((answer - BUSY + 999) / 1000);
                }
                return answer > 0 ? Outcome.granted(answer) : Outcome.busy(-1);
            }
        }
    }

    @Override
    public boolean renew(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setLong(1, leaseMillis * 1000);
            statement.setBytes(2, bytes(key));
            statement.setString(3, owner);
            return statement.executeUpdate() == 1;
        }
    }

    /**
     * One UPDATE per batch; only when it matched fewer rows than asked does a second
     * statement learn which holds are gone. A row we did not renew was expired or not ours,
     * and nothing can make it ours and live again in between, so the read is exact.
     */
    @Override
    public Set<String> renewAll(Connection connection, List<Held> holds, long leaseMillis) throws SQLException {
        Set<String> renewed = new HashSet<>();
        for (int from = 0; from < holds.size(); from += BATCH) {
            List<Held> chunk = holds.subList(from, Math.min(holds.size(), from + BATCH));
            String where = " WHERE lock_key IN (" + marks(chunk.size()) + ") AND (lock_key, lock_owner) IN ("
                    + pairs(chunk.size()) + ") AND expires_at > " + NOW;
            int matched;
            try (PreparedStatement statement = prepare(connection,
                    sql("UPDATE ${table} SET expires_at = " + NOW + " + INTERVAL ? MICROSECOND" + where))) {
                statement.setLong(1, leaseMillis * 1000);
                bind(statement, 2, chunk);
                matched = statement.executeUpdate();
            }
            if (matched == chunk.size()) {
                chunk.forEach(held -> renewed.add(held.owner()));
                continue;
            }
            try (PreparedStatement statement = prepare(connection, sql("SELECT lock_owner FROM ${table}" + where))) {
                bind(statement, 1, chunk);
                collectFirstColumn(statement, renewed);
            }
        }
        return renewed;
    }

    private static void bind(PreparedStatement statement, int first, List<Held> chunk) throws SQLException {
        int index = first;
        for (Held held : chunk) {
            statement.setBytes(index++, bytes(held.key()));
        }
        for (Held held : chunk) {
            statement.setBytes(index++, bytes(held.key()));
            statement.setString(index++, held.owner());
        }
    }

    /**
     * Keys go to the VARBINARY column as UTF-8 bytes, never as strings the driver would
     * encode in the connection's character set: clients configured with different
     * character sets must still meet on the same row.
     */
    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            statement.setBytes(1, bytes(key));
            statement.setString(2, owner);
            return statement.executeUpdate() == 1;
        }
    }
}
