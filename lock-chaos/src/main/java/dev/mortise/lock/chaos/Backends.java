package dev.mortise.lock.chaos;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.redis.RedisLockBackendBuilder;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Builds the lock backend a worker locks on, from a name and a target string the controller
 * passes on the worker's command line (Redis address, PostgreSQL JDBC URL, etcd endpoints (comma-separated) or
 * ZooKeeper connect string).
 */
public final class Backends {

    /** The backends this slice drives. */
    public static final java.util.List<String> SUPPORTED = java.util.List.of("redis", "jdbc", "etcd", "zookeeper");

    private Backends() {
    }

    /**
     * {@code redis://host:port}, or {@code sentinel://<master>@host:port[?wait=1]}: the master
     * Sentinel names, and with {@code wait=1} every grant and renewal acknowledged by one replica
     * ({@code waitForReplicas(1, 500 ms)}).
     */
    private static LockBackend redis(String target, Duration lease) {
        if (!target.startsWith("sentinel://")) {
            return RedisLockBackend.builder().address(target).build();
        }
        String rest = target.substring("sentinel://".length());
        boolean wait = rest.endsWith("?wait=1");
        if (wait) {
            rest = rest.substring(0, rest.length() - "?wait=1".length());
        }
        int at = rest.indexOf('@');
        RedisLockBackendBuilder builder = RedisLockBackend.builder()
                .sentinel(rest.substring(0, at), "redis://" + rest.substring(at + 1))
                // One Sentinel is enough here; Redisson insists on two unless told otherwise.
                .configure(c -> c.useSentinelServers().setCheckSentinelsList(false));
        if (wait) {
            builder.waitForReplicas(1, Duration.ofMillis(500));
        }
        return builder.build();
    }

    /** A new backend for {@code name} (one of {@link #SUPPORTED}) on {@code target}. */
    public static LockBackend create(String name, String target, Duration lease) {
        return switch (name) {
            case "redis" -> redis(target, lease);
            case "jdbc" -> {
                // The driver's unpooled data source: a pool's housekeeping thread complains about
                // clock leaps after SIGSTOP/SIGCONT and adds nothing to what is measured here.
                PGSimpleDataSource dataSource = new PGSimpleDataSource();
                dataSource.setUrl(target);
                dataSource.setUser("postgres");
                yield JdbcLockBackend.builder(dataSource).createTableIfMissing(true).build();
            }
            case "etcd" -> EtcdLockBackend.builder().endpoints(target.split(",")).build();
            // A hold lives as long as the session: as long as the lease (docs/zookeeper.md: the
            // lease no longer than the session), so a holder that dies is replaced about one
            // lease later, as on the other backends.
            case "zookeeper" -> ZookeeperLockBackend.builder().connectString(target).sessionTimeout(lease).build();
            default -> throw new IllegalArgumentException("unknown backend '" + name + "', expected one of " + SUPPORTED);
        };
    }
}
