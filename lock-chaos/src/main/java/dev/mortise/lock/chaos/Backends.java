package dev.mortise.lock.chaos;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisDriver;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.redis.RedisLockBackendBuilder;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import java.time.Duration;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Builds the lock backend a worker locks on, from a backend label and a target string the
 * controller passes on the worker's command line (Redis address, PostgreSQL JDBC URL, etcd
 * endpoints (comma-separated) or ZooKeeper connect string).
 *
 * <p>A label is a backend name ({@link #SUPPORTED}), for Redis optionally followed by its
 * variant: {@code redis/lettuce} (the Lettuce driver instead of Redisson), {@code redis/fair}
 * (fair mode) or {@code redis/lettuce/fair}. The label is what a run result and the report name,
 * so runs of different variants are never confused; the server behind it is the base name's.
 */
public final class Backends {

    /** The backends this slice drives. */
    public static final List<String> SUPPORTED = List.of("redis", "jdbc", "etcd", "zookeeper");

    private Backends() {
    }

    /** The backend name of a label: {@code redis} for {@code redis/lettuce/fair}. */
    public static String base(String label) {
        int slash = label.indexOf('/');
        return slash < 0 ? label : label.substring(0, slash);
    }

    /**
     * The label of {@code backend} with the Redis switches applied: unchanged for any other
     * backend and for Redis with the defaults (Redisson, not fair), so earlier results keep their names.
     */
    public static String label(String backend, boolean lettuce, boolean fair) {
        if (!backend.equals("redis")) {
            return backend;
        }
        return backend + (lettuce ? "/lettuce" : "") + (fair ? "/fair" : "");
    }

    /** {@code --redis-driver}: true for {@code lettuce}, false for {@code redisson} (the default). */
    static boolean isLettuce(String driver) {
        return switch (driver) {
            case "lettuce" -> true;
            case "redisson" -> false;
            default -> throw new IllegalArgumentException("unknown --redis-driver '" + driver
                    + "': use redisson (the default) or lettuce");
        };
    }

    /** A label as a file name (no slash): {@code redis-lettuce-fair}. */
    public static String fileName(String label) {
        return label.replace('/', '-');
    }

    /**
     * {@code redis://host:port}, or {@code sentinel://<master>@host:port[?wait=1]}: the master
     * Sentinel names, and with {@code wait=1} every grant and renewal acknowledged by one replica
     * ({@code waitForReplicas(1, 500 ms)}). {@code options} are the label's variant parts
     * ({@code lettuce}, {@code fair}).
     */
    private static LockBackend redis(String target, List<String> options) {
        boolean lettuce = options.contains("lettuce");
        RedisLockBackendBuilder builder = RedisLockBackend.builder().fair(options.contains("fair"));
        if (lettuce) {
            builder.driver(RedisDriver.LETTUCE);
        }
        if (!target.startsWith("sentinel://")) {
            return builder.address(target).build();
        }
        String rest = target.substring("sentinel://".length());
        boolean wait = rest.endsWith("?wait=1");
        if (wait) {
            rest = rest.substring(0, rest.length() - "?wait=1".length());
        }
        int at = rest.indexOf('@');
        builder.sentinel(rest.substring(0, at), "redis://" + rest.substring(at + 1));
        if (!lettuce) {
            // One Sentinel is enough here; Redisson insists on two unless told otherwise
            // (configure(...) is Redisson's alone: the builder refuses it with Lettuce).
            builder.configure(c -> c.useSentinelServers().setCheckSentinelsList(false));
        }
        if (wait) {
            builder.waitForReplicas(1, Duration.ofMillis(500));
        }
        return builder.build();
    }

    /**
     * A new backend for {@code label} (one of {@link #SUPPORTED}, Redis with its variant) on
     * {@code target}.
     *
     * @throws IllegalArgumentException for an unknown backend, or a variant part on a backend
     *                                  other than Redis or unknown to it
     */
    public static LockBackend create(String label, String target, Duration lease) {
        String name = base(label);
        List<String> options = label.equals(name) ? List.of()
                : List.of(label.substring(name.length() + 1).split("/"));
        if (!options.isEmpty() && (!name.equals("redis") || !List.of("lettuce", "fair").containsAll(options))) {
            throw new IllegalArgumentException("unknown backend variant '" + label
                    + "': only redis has variants, redis/lettuce, redis/fair or redis/lettuce/fair");
        }
        return switch (name) {
            case "redis" -> redis(target, options);
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
            default -> throw new IllegalArgumentException("unknown backend '" + label + "', expected one of " + SUPPORTED);
        };
    }
}
