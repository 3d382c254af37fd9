package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static dev.mortise.lock.jdbc.internal.MySqlExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW;

/**
 * MySQL and MariaDB: the marker of an exclusive request that waits. Waiters poll with backoff, so
 * nothing records them and nothing is notified.
 */
final class MySqlWaitSql extends MarkTemplate {

    /**
     * Over: key, owner, lease, original key; in the update: mark. TAKE (the exclusive acquire's
     * condition) reads lock_owner and expires_at, which only the last assignments change; the
     * marker columns are decided on the marker as it was, then the exclusive acquire's own
     * assignments follow in their order ({@link MySqlLockSql}).
     */
    private static final String ACQUIRE_MARKING = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            VALUES (?, ?, LAST_INSERT_ID({FIRST}), {NOW}, {LEASE}, ?)
            ON DUPLICATE KEY UPDATE
              writer_waits_until = IF({TAKE}, IF(waiting_writer <=> VALUES(lock_owner), NULL, writer_waits_until),
                {NOW} + INTERVAL (? * 1000) MICROSECOND),
              waiting_writer = IF({TAKE}, IF(waiting_writer <=> VALUES(lock_owner), NULL, waiting_writer), VALUES(lock_owner)),
              shared_holds = IF({TAKE}, NULL, shared_holds),
              fencing_token = {TOKEN},
              acquired_at = IF({TAKE}, IF(lock_owner <=> VALUES(lock_owner), acquired_at, {NOW}), acquired_at),
              lock_owner = IF({TAKE}, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)""";

    private final String acquireMarking;

    /** @param first the token of a new row, {@code next} that of a new holder of an existing row */
    MySqlWaitSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, true);
        this.acquireMarking = sql(ACQUIRE_MARKING.replace("{TOKEN}", MySqlLockSql.token(next))
                .replace("{TAKE}", MySqlLockSql.TAKE).replace("{FIRST}", first).replace("{LEASE}", LEASE)
                .replace("{NOW}", NOW));
    }

    @Override
    public LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                          long markMillis, long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquireMarking)) {
            setKey(statement, 1, key.value());
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis);
            statement.setString(4, key.original());
            statement.setLong(5, markMillis);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            return MySqlAnswers.read(statement);
        }
    }
}
