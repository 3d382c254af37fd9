package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.SqlDatabase;
import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The JDBC backend's wait records: rows of the table beside the lock table ({@link TableName#waits()}),
 * one per holder id, each with its nonce, text and an expiry the statement computes from the
 * database's clock. Reads skip expired rows; every publish and remove also deletes up to
 * {@link WaitRecordSql#SWEEP} expired rows, so a row outlives its expiry only until the next write of
 * any backend on the table. Each call is one operation of {@link JdbcCalls} (its own autocommit
 * connection, bounded by the operation timeout, failing as a {@link dev.mortise.lock.LockBackendException}
 * naming the backend and the table), whatever the number of holder ids: one statement on PostgreSQL,
 * a write and its sweep on MySQL/MariaDB and H2. Thread-safe.
 */
public final class JdbcWaitRecords implements WaitRecords {

    private final JdbcCalls calls;
    private final WaitRecordSql sql;
    private final TableName waits;

    private JdbcWaitRecords(JdbcCalls calls, WaitRecordSql sql, TableName waits) {
        this.calls = calls;
        this.sql = sql;
        this.waits = waits;
    }

    /** The wait records beside {@code table}, over the backend's own calls (which create the table when allowed). */
    public static JdbcWaitRecords of(SqlDatabase dialect, TableName table, JdbcCalls calls, int queryTimeoutSeconds) {
        TableName waits = table.waits();
        return new JdbcWaitRecords(calls, WaitRecordSql.of(dialect, waits, queryTimeoutSeconds), waits);
    }

    /**
     * @return {@code ttl} rounded up to whole microseconds, the expiry's precision
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(text, "text");
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("a wait record's ttl must be positive (backend 'jdbc'), was " + ttl);
        }
        long micros = ttl.toNanos() / 1000 + (ttl.toNanos() % 1000 == 0 ? 0 : 1);
        List<String> ids = distinct(holderIds);
        if (!ids.isEmpty()) {
            calls.runIdempotent(null, "publish wait records in table '" + waits + "'", c -> {
                sql.publish(c, ids, nonce, text, micros);
                return null;
            });
        }
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        Objects.requireNonNull(nonce, "nonce");
        List<String> ids = distinct(holderIds);
        if (!ids.isEmpty()) {
            // A repeat after a broken connection deletes nothing more: the rows bear the nonce or not.
            calls.runIdempotent(null, "remove wait records from table '" + waits + "'", c -> {
                sql.remove(c, ids, nonce);
                return null;
            });
        }
    }

    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        List<String> ids = distinct(holderIds);
        if (ids.isEmpty()) {
            return Map.of();
        }
        return calls.runIdempotent(null, "read wait records from table '" + waits + "'", c -> sql.read(c, ids));
    }

    /** The ids once each: an upsert must not meet one row twice. */
    private static List<String> distinct(Collection<String> holderIds) {
        return new ArrayList<>(new LinkedHashSet<>(holderIds));
    }

    @Override
    public String toString() {
        return "JdbcWaitRecords[" + waits + "]";
    }
}
