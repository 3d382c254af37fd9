package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.local.LocalLockBackend;

import java.util.List;

/**
 * Every subject by id, so the harness and the child JVMs of the handoff scenario build the
 * same thing from the same string.
 */
public final class SubjectCatalog {

    private SubjectCatalog() {
    }

    /** The subject ids of one backend group, in report order. */
    public static List<String> ids(String group) {
        return switch (group) {
            case "redis" -> RedisSubjects.IDS;
            case "etcd" -> EtcdSubjects.IDS;
            case "zookeeper" -> ZookeeperSubjects.IDS;
            case "postgres", "mariadb" -> JdbcSubjects.ids(group);
            case "local" -> List.of("local/mortise");
            default -> throw new IllegalArgumentException("unknown backend group " + group);
        };
    }

    /** The subjects of the read-write scenario in one group: Mortise and the peers' read-write locks. */
    public static List<String> readWriteIds(String group) {
        return switch (group) {
            case "redis" -> RedisSubjects.READ_WRITE_IDS;
            case "zookeeper" -> ZookeeperSubjects.READ_WRITE_IDS;
            // No peer offers a read-write lock on etcd or in SQL: Mortise alone.
            case "etcd", "postgres", "mariadb", "local" -> List.of(group + "/mortise");
            default -> throw new IllegalArgumentException("unknown backend group " + group);
        };
    }

    /** The subjects of the multi-key scenario in one group: Mortise and the peers' multi-locks. */
    public static List<String> multiKeyIds(String group) {
        return switch (group) {
            case "redis" -> RedisSubjects.MULTI_KEY_IDS;
            case "zookeeper" -> ZookeeperSubjects.MULTI_KEY_IDS;
            case "etcd", "postgres", "mariadb", "local" -> List.of(group + "/mortise");
            default -> throw new IllegalArgumentException("unknown backend group " + group);
        };
    }

    public static LockSubject create(String id, Endpoints endpoints) throws Exception {
        String group = id.substring(0, id.indexOf('/'));
        return switch (group) {
            case "redis" -> RedisSubjects.create(id, endpoints.get("redis"));
            case "etcd" -> EtcdSubjects.create(id, endpoints.get("etcd"));
            case "zookeeper" -> ZookeeperSubjects.create(id, endpoints.get("zookeeper"));
            case "postgres" -> JdbcSubjects.create(id, endpoints.get("postgres"), "postgres");
            case "mariadb" -> JdbcSubjects.create(id, endpoints.get("mariadb"), "root");
            // In-process: contends only within one JVM, so it is for smoke runs of the harness.
            case "local" -> MortiseSubjects.over(id, LocalLockBackend.create());
            default -> throw new IllegalArgumentException("unknown subject " + id);
        };
    }
}
