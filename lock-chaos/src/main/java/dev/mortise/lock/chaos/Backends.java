package dev.mortise.lock.chaos;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Builds the lock backend a worker locks on, from a name and a target string the controller
 * passes on the worker's command line (Redis address, or a PostgreSQL JDBC URL).
 */
public final class Backends {

    /** The backends this slice drives. */
    public static final java.util.List<String> SUPPORTED = java.util.List.of("redis", "jdbc");

    private Backends() {
    }

    /** A new backend for {@code name} ({@code redis} or {@code jdbc}) on {@code target}. */
    public static LockBackend create(String name, String target) {
        return switch (name) {
            case "redis" -> RedisLockBackend.builder().address(target).build();
            case "jdbc" -> {
                // The driver's unpooled data source: a pool's housekeeping thread complains about
                // clock leaps after SIGSTOP/SIGCONT and adds nothing to what is measured here.
                PGSimpleDataSource dataSource = new PGSimpleDataSource();
                dataSource.setUrl(target);
                dataSource.setUser("postgres");
                yield JdbcLockBackend.builder(dataSource).createTableIfMissing(true).build();
            }
            default -> throw new IllegalArgumentException("unknown backend '" + name + "', expected one of " + SUPPORTED);
        };
    }
}
