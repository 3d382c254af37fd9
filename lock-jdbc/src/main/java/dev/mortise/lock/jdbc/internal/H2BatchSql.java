package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * H2: one {@code MERGE … USING} read through {@code FINAL TABLE}, whose source rows are the parts only
 * when no key of the batch is held by another owner (checked in the source query), with the single
 * acquire's match condition and assignments; the final table answers the rows it took. A batch not
 * taken whole is followed by one owner-checked release of all its parts (see {@link #releaseAll}). Exclusive
 * parts only: a batch with a shared part is left to the core's ordered path. Two first-time acquirers
 * of a new key can race on the insert; the loser's statement fails as a whole on the duplicate key and
 * is sent once more, as the single acquire does.
 */
final class H2BatchSql extends Statements implements BatchSql {

    private static final String NOW = H2Expressions.NOW;

    /** Over: lease, keys, owners, original keys, keys (check); then now, first token, next token. */
    private static final String ACQUIRE_ALL = """
            SELECT lock_key, fencing_token FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (SELECT r.k, r.o, r.orig, CAST(? AS BIGINT) AS ms
                       FROM UNNEST(CAST(? AS VARCHAR ARRAY), CAST(? AS VARCHAR ARRAY), CAST(? AS VARCHAR ARRAY)) r(k, o, orig)
                       WHERE NOT EXISTS (SELECT 1 FROM UNNEST(CAST(? AS VARCHAR ARRAY)) q(k) JOIN ${table} h ON h.lock_key = q.k
                         WHERE h.lock_owner IS NOT NULL AND h.expires_at > %1$s)) s(k, o, orig, ms)
              ON l.lock_key = s.k
              WHEN MATCHED AND {TAKE} THEN UPDATE SET
            {TAKE_SET}
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
                VALUES (s.k, s.o, %2$s, %1$s, DATEADD(MILLISECOND, s.ms, %1$s), s.orig))""";

    private final String acquireAll;
    private final String releaseAll;

    /** @param first the token of a new row, {@code next} that of a new holder of row {@code l} (as the single acquire) */
    H2BatchSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        this.acquireAll = sql(ACQUIRE_ALL.replace("{TAKE_SET}", H2LockSql.TAKE_SET.replace("{NEXT}", "%3$s")
                .replace("{NOW}", "%1$s")).replace("{TAKE}", H2LockSql.TAKE).formatted(NOW, first, next));
        this.releaseAll = ("UPDATE ${table} SET lock_owner = NULL, expires_at = NULL WHERE lock_key IN (SELECT k FROM"
                + " UNNEST(CAST(? AS VARCHAR ARRAY)) q(k)) AND lock_owner IN (SELECT o FROM UNNEST(CAST(? AS VARCHAR"
                + " ARRAY)) p(o)) AND expires_at > " + NOW).replace("${table}", table.sql());
    }

    @Override
    public boolean accepts(List<Part> parts) {
        return parts.stream().noneMatch(Part::shared);
    }

    @Override
    public long[] acquireAll(Connection connection, List<Part> parts, long leaseMillis, long[] requestedAt)
            throws SQLException {
        return H2Merges.onceMoreOnDuplicate(() -> merge(connection, parts, leaseMillis, requestedAt));
    }

    private long[] merge(Connection connection, List<Part> parts, long leaseMillis, long[] requestedAt)
            throws SQLException {
        int n = parts.size();
        String[] keys = new String[n];
        String[] owners = new String[n];
        String[] originals = new String[n];
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < n; i++) {
            keys[i] = parts.get(i).key().value();
            owners[i] = parts.get(i).owner();
            originals[i] = parts.get(i).key().original();
            positions.put(keys[i], i);
        }
        try (PreparedStatement statement = prepare(connection, acquireAll)) {
            statement.setLong(1, leaseMillis);
            statement.setArray(2, connection.createArrayOf("VARCHAR", keys));
            statement.setArray(3, connection.createArrayOf("VARCHAR", owners));
            statement.setArray(4, connection.createArrayOf("VARCHAR", originals));
            statement.setArray(5, connection.createArrayOf("VARCHAR", keys));
            long[] tokens = new long[n];
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    Integer position = positions.get(rows.getString(1));
                    if (position != null) {
                        tokens[position] = rows.getLong(2);
                    }
                }
            }
            for (long token : tokens) {
                if (token == 0) {
                    releaseAll(connection, keys, owners);
                    return new long[n];
                }
            }
            return tokens;
        }
    }

    /**
     * When H2 finds a row of the batch locked by another session's uncommitted insert, it runs the merge
     * again once that commits; the rows the first run wrote can stay while the final table answers only
     * the second run's (none, as the key is held now). So any batch not taken whole is followed by one
     * owner-checked release of every part (the owners are unique to this batch: nothing else is touched).
     */
    private void releaseAll(Connection connection, String[] keys, String[] owners) throws SQLException {
        try (PreparedStatement statement = prepare(connection, releaseAll)) {
            statement.setArray(1, connection.createArrayOf("VARCHAR", keys));
            statement.setArray(2, connection.createArrayOf("VARCHAR", owners));
            statement.executeUpdate();
        }
    }

    @Override
    public String cost() {
        return "one statement; a refusal adds an owner-checked release of the parts";
    }
}
