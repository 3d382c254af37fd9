package dev.mortise.lock.vthreads;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisDriver;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;

import java.util.List;

/**
 * The backend a run waits on, from its label and the server's address: {@code redis}
 * (Redisson), {@code redis/lettuce}, {@code etcd}, {@code zookeeper}, and the JDBC dialects
 * {@code postgres}, {@code mariadb}, {@code h2} (in this JVM, in memory) on a HikariCP pool of
 * its default size, as a service would have.
 */
final class WaiterBackends {

    /** Every label a run accepts. */
    static final List<String> LABELS = List.of("redis", "redis/lettuce", "etcd", "zookeeper", "postgres", "mariadb",
            "h2");

    private WaiterBackends() {
    }

    /**
     * @param target the server's address: {@code redis://host:port}, an etcd endpoint, a
     *               ZooKeeper connect string, or {@code <jdbc url> <user>} (ignored for h2)
     * @throws IllegalArgumentException for an unknown label, naming the known ones
     */
    static LockBackend create(String label, String target) {
        return switch (label) {
            case "redis" -> RedisLockBackend.builder().address(target).build();
            case "redis/lettuce" -> RedisLockBackend.builder().address(target).driver(RedisDriver.LETTUCE).build();
            case "etcd" -> EtcdLockBackend.builder().endpoints(target).build();
            case "zookeeper" -> ZookeeperLockBackend.builder().connectString(target).build();
            case "postgres", "mariadb" -> jdbc(target.split(" ")[0], target.split(" ")[1]);
            case "h2" -> jdbc("jdbc:h2:mem:vthreads;DB_CLOSE_DELAY=-1", "sa");
            default -> throw new IllegalArgumentException("unknown backend '" + label + "', expected one of " + LABELS);
        };
    }

    private static LockBackend jdbc(String url, String user) {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(url);
        pool.setUsername(user);
        return JdbcLockBackend.builder(new HikariDataSource(pool)).createTableIfMissing(true).build();
    }
}
