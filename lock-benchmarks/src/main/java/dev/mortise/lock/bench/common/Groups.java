package dev.mortise.lock.bench.common;

import java.util.Map;

/** The titles the report gives the backend groups, shared by the page and the charts. */
public final class Groups {

    private static final Map<String, String> TITLES = Map.of("redis", "Redis", "etcd", "etcd",
            "zookeeper", "ZooKeeper", "postgres", "JDBC on PostgreSQL", "mariadb", "JDBC on MariaDB",
            "local", "In-process backend");

    private Groups() {
    }

    /** The title of {@code group}, or the group's own name if it has none. */
    public static String title(String group) {
        return TITLES.getOrDefault(group, group);
    }
}
