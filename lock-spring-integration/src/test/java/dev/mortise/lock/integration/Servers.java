package dev.mortise.lock.integration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import org.apache.curator.test.TestingServer;

import javax.sql.DataSource;

/**
 * The real servers of the tests, one of each per test JVM, started on first use and stopped
 * when the JVM exits (so a test class's clients close before their server goes).
 */
final class Servers {

    private static RedisServer redis;
    private static EtcdServer etcd;
    private static TestingServer zookeeper;
    private static HikariDataSource postgres;
    private static HikariDataSource mariadb;

    private Servers() {
    }

    static synchronized RedisServer redis() {
        if (redis == null) {
            redis = atExit(new RedisServer(), "redis");
            redis.start();
        }
        return redis;
    }

    static synchronized EtcdServer etcd() {
        if (etcd == null) {
            etcd = atExit(new EtcdServer(), "etcd");
            etcd.start();
        }
        return etcd;
    }

    static synchronized TestingServer zookeeper() {
        if (zookeeper == null) {
            try {
                zookeeper = atExit(new TestingServer(true), "zookeeper");
            } catch (Exception e) {
                throw new IllegalStateException("could not start the ZooKeeper test server", e);
            }
        }
        return zookeeper;
    }

    static synchronized DataSource postgres() {
        if (postgres == null) {
            PostgresServer server = atExit(new PostgresServer(), "postgres");
            server.start();
            postgres = atExit(pool("postgres", server.jdbcUrl(), server.user()), "postgres-pool");
        }
        return postgres;
    }

    static synchronized DataSource mariadb() {
        if (mariadb == null) {
            MariaDbServer server = atExit(new MariaDbServer(), "mariadb");
            server.start();
            mariadb = atExit(pool("mariadb", server.jdbcUrl(), server.user()), "mariadb-pool");
        }
        return mariadb;
    }

    private static HikariDataSource pool(String name, String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("spring-integration-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        // Two clients, the test's worker threads and the backends' own connections.
        config.setMaximumPoolSize(24);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    private static <T extends AutoCloseable> T atExit(T server, String name) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                // The JVM is exiting; the launcher kills its process group anyway.
            }
        }, "stop-" + name));
        return server;
    }
}
