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
 * A variant label is accepted on {@code ChaosRun}'s command line beside the plain names
 * ({@link #parse}) and runs as a backend of its own.
 */
public final class Backends {

    /** The backends this slice drives. */
    public static final List<String> SUPPORTED = List.of("redis", "jdbc", "etcd", "zookeeper");

    /** The Redis variants, each a backend label of its own beside {@code redis} (Redisson, not fair). */
    public static final List<String> REDIS_VARIANTS = List.of("redis/lettuce", "redis/fair", "redis/lettuce/fair");

    /** The variant parts a Redis label may carry, in the order a label names them. */
    private static final List<String> REDIS_OPTIONS = List.of("lettuce", "fair");

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

    /**
     * A label as given on the command line, checked and in its canonical form: a backend of
     * {@link #SUPPORTED}, or {@code redis} with its variant parts ({@code lettuce}, {@code fair})
     * in any order, each at most once ({@code redis/fair/lettuce} is {@code redis/lettuce/fair}).
     * {@code lettuce} and {@code fair} (the {@code --redis-driver lettuce} and {@code --redis-fair}
     * switches) add their part to a Redis label, as {@link #label(String, boolean, boolean)} does.
     *
     * @throws IllegalArgumentException for an unknown backend, a variant part of another backend,
     *                                  an unknown or repeated part
     */
    public static String parse(String given, boolean lettuce, boolean fair) {
        String name = base(given.trim());
        if (!SUPPORTED.contains(name)) {
            throw new IllegalArgumentException("unknown backend '" + given + "', expected one of " + SUPPORTED
                    + " or a Redis variant " + REDIS_VARIANTS);
        }
        List<String> parts = options(given.trim(), name);
        if (!parts.isEmpty() && !name.equals("redis")) {
            throw new IllegalArgumentException("unknown backend variant '" + given
                    + "': only redis has variants, " + REDIS_VARIANTS);
        }
        for (String part : parts) {
            if (!REDIS_OPTIONS.contains(part) || parts.indexOf(part) != parts.lastIndexOf(part)) {
                throw new IllegalArgumentException("unknown or repeated Redis variant part '" + part + "' in '"
                        + given + "': use " + REDIS_VARIANTS);
            }
        }
        return label(name, lettuce || parts.contains("lettuce"), fair || parts.contains("fair"));
    }

    /** True for a Redis variant label ({@link #REDIS_VARIANTS}), false for a plain backend. */
    public static boolean isVariant(String label) {
        return !base(label).equals(label);
    }

    /** The parts after the base name: {@code [lettuce, fair]} for {@code redis/lettuce/fair}. */
    private static List<String> options(String label, String name) {
        return label.equals(name) ? List.of() : List.of(label.substring(name.length() + 1).split("/", -1));
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
        List<String> options = options(label, name);
        if (!options.isEmpty() && (!name.equals("redis") || !REDIS_OPTIONS.containsAll(options))) {
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
