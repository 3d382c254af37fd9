package dev.mortise.lock.bench.run;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.fencing.FenceDialect;
import dev.mortise.lock.fencing.JdbcFenceGuard;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * "Fenced vs unfenced transaction" on PostgreSQL: the same read-modify-write transaction
 * ({@code SELECT balance}, {@code UPDATE balance}, commit) with and without
 * {@link JdbcFenceGuard#check} as its first statement, one thread, one pooled connection.
 * The two variants alternate call by call, so load on a shared machine falls on both alike;
 * the answer is the p50 (and p99) of each and the p50 difference: the cost of the extra statement.
 */
public final class FenceOverheadRun {

    /** Latency of each variant, in microseconds. */
    public record Result(int samples, double unfencedP50, double unfencedP99, double fencedP50, double fencedP99) {

        public double overheadP50() {
            return fencedP50 - unfencedP50;
        }
    }

    private final Timing timing;
    private final Notes notes;
    /** Tokens only grow across warm-up and rounds, as a lock key's do. */
    private long token = 1;

    public FenceOverheadRun(Timing timing, Notes notes) {
        this.timing = timing;
        this.notes = notes;
    }

    public Result run(String jdbcUrl, String user) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-fence");
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS bench_fenced_accounts (id VARCHAR(32) PRIMARY KEY, balance BIGINT NOT NULL)");
                s.execute("DELETE FROM bench_fenced_accounts");
                s.execute("INSERT INTO bench_fenced_accounts VALUES ('a', 0)");
            }
            JdbcFenceGuard guard = JdbcFenceGuard.builder(pool).dialect(FenceDialect.POSTGRESQL)
                    .createTableIfMissing(true).build();
            // Warm-up: both variants, discarded.
            loop(pool, guard, timing.warmup().toNanos(), new Latencies(), new Latencies());
            Latencies unfenced = new Latencies();
            Latencies fenced = new Latencies();
            for (int round = 0; round < timing.rounds(); round++) {
                loop(pool, guard, timing.measure().toNanos(), unfenced, fenced);
            }
            Result result = new Result(fenced.size(), unfenced.percentileMicros(50), unfenced.percentileMicros(99),
                    fenced.percentileMicros(50), fenced.percentileMicros(99));
            notes.progress(String.format("  fence: %d transactions each; unfenced p50 %.0f µs p99 %.0f µs; fenced p50 "
                            + "%.0f µs p99 %.0f µs; p50 overhead %.0f µs (%.0f%%)", result.samples(),
                    result.unfencedP50(), result.unfencedP99(), result.fencedP50(), result.fencedP99(),
                    result.overheadP50(), 100 * result.overheadP50() / result.unfencedP50()));
            return result;
        }
    }

    private void loop(HikariDataSource pool, JdbcFenceGuard guard, long nanos, Latencies unfenced,
                      Latencies fenced) throws SQLException {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            unfenced.add(transaction(pool, null, 0));
            fenced.add(transaction(pool, guard, token++));
        }
    }

    /** One read-modify-write transaction, fenced first when {@code guard} is given; its duration in ns. */
    private static long transaction(HikariDataSource pool, JdbcFenceGuard guard, long token) throws SQLException {
        long start = System.nanoTime();
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (guard != null) {
                    guard.check(c, "bench:account:a", token);
                }
                long balance;
                try (PreparedStatement read = c.prepareStatement("SELECT balance FROM bench_fenced_accounts WHERE id = ?")) {
                    read.setString(1, "a");
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        balance = rs.getLong(1);
                    }
                }
                try (PreparedStatement write = c.prepareStatement("UPDATE bench_fenced_accounts SET balance = ? WHERE id = ?")) {
                    write.setLong(1, balance + 1);
                    write.setString(2, "a");
                    write.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
        return System.nanoTime() - start;
    }
}
