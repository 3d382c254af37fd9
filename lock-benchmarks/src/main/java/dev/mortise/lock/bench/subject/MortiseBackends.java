package dev.mortise.lock.bench.subject;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;

/** Mortise's backend of each group, built as a user would with the builders' defaults. */
public final class MortiseBackends {

    /** A backend and what must be closed after the client that owns it (a connection pool). */
    public record Built(LockBackend backend, AutoCloseable afterClient) {
    }

    private MortiseBackends() {
    }

    public static Built create(String group, Endpoints endpoints) {
        return switch (group) {
            case "redis" -> new Built(RedisLockBackend.builder().address(endpoints.get("redis")).build(), () -> { });
            case "etcd" -> new Built(EtcdLockBackend.builder().endpoints(endpoints.get("etcd")).build(), () -> { });
            case "zookeeper" -> new Built(ZookeeperLockBackend.builder().connectString(endpoints.get("zookeeper"))
                    .build(), () -> { });
            case "postgres", "mariadb" -> {
                HikariDataSource pool = JdbcSubjects.pool(group + "/mortise-leases", endpoints.get(group),
                        group.equals("postgres") ? "postgres" : "root");
                yield new Built(JdbcLockBackend.builder(pool).createTableIfMissing(true).build(), pool);
            }
            case "local" -> new Built(LocalLockBackend.create(), () -> { });
            default -> throw new IllegalArgumentException("unknown backend group " + group);
        };
    }
}
