package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.ServerProcess;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The real server a backend locks on, started for a run and stopped by {@link #close()}: the
 * lock servers are separate from the ledger's PostgreSQL, so a fault on one never touches the
 * other.
 */
public final class BackendServer implements AutoCloseable {

    private final AutoCloseable server;
    private final String target;

    private BackendServer(AutoCloseable server, String target) {
        this.server = server;
        this.target = target;
        Cleanup.register(this);
    }

    /** Starts the server for {@code backend} and waits until it is ready. */
    public static BackendServer start(String backend) {
        return switch (backend) {
            case "redis" -> {
                RedisServer redis = new RedisServer();
                redis.start();
                yield new BackendServer(redis, redis.address());
            }
            case "jdbc" -> {
                PostgresServer postgres = new PostgresServer();
                postgres.start();
                yield new BackendServer(postgres, postgres.jdbcUrl());
            }
            case "etcd" -> {
                EtcdServer etcd = new EtcdServer();
                etcd.start();
                yield new BackendServer(etcd, etcd.endpoint());
            }
            case "zookeeper" -> {
                // In this JVM (curator-test), with a 500 ms tick: the server then grants session
                // timeouts from 1 s, so a session can be a little longer than a 2 s lease.
                try {
                    TestingServer zookeeper = new TestingServer(
                            new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                    yield new BackendServer(zookeeper, zookeeper.getConnectString());
                } catch (Exception e) {
                    throw new IllegalStateException("could not start ZooKeeper: " + e.getMessage(), e);
                }
            }
            default -> throw new IllegalArgumentException("unknown backend '" + backend + "', expected one of "
                    + Backends.SUPPORTED);
        };
    }

    /** What the workers pass to {@link Backends#create}: the Redis address or the JDBC URL. */
    public String target() {
        return target;
    }

    /** kill -9 of the server, {@code downMillis} down, then a restart on the same port and data. */
    public void killAndRestart(long downMillis) throws Exception {
        if (server instanceof ServerProcess process) {
            process.kill();
            Thread.sleep(downMillis);
            process.start();
        } else if (server instanceof TestingServer zookeeper) {
            // In this JVM: no kill -9; stop() closes it at once, restart() keeps its data.
            zookeeper.stop();
            Thread.sleep(downMillis);
            zookeeper.restart();
        }
    }

    /**
     * Locks still held on the server - after every worker has ended and the lease has run out,
     * an orphan - or -1 where this slice has no cheap way to look (etcd, ZooKeeper).
     */
    public long heldLocks() throws Exception {
        if (server instanceof RedisServer redis) {
            // Lock keys carry the lease as TTL; "mortise" is the backend's default key prefix.
            String reply = redis.command("EVAL", "return #redis.call('keys', ARGV[1])", "0", "mortise:lock:*");
            return Long.parseLong(reply.substring(1));
        }
        if (server instanceof PostgresServer postgres) {
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), "");
                 java.sql.Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM mortise_locks"
                         + " WHERE lock_owner IS NOT NULL AND expires_at > now()")) {
                rs.next();
                return rs.getLong(1);
            }
        }
        if (server instanceof TestingServer zookeeper) {
            return zookeeperHolds(zookeeper.getConnectString());
        }
        return -1;
    }

    /** Lock nodes (children of each key's parent) under the backend's default root path. */
    private static long zookeeperHolds(String connectString) throws Exception {
        try (org.apache.curator.framework.CuratorFramework client = org.apache.curator.framework.CuratorFrameworkFactory
                .newClient(connectString, new org.apache.curator.retry.RetryOneTime(100))) {
            client.start();
            if (client.checkExists().forPath("/mortise/locks") == null) {
                return 0;
            }
            long nodes = 0;
            for (String key : client.getChildren().forPath("/mortise/locks")) {
                nodes += client.getChildren().forPath("/mortise/locks/" + key).size();
            }
            return nodes;
        }
    }

    /** The launcher of an external server process, or null for ZooKeeper (in this JVM). */
    public ServerProcess server() {
        return server instanceof ServerProcess process ? process : null;
    }

    @Override
    public void close() {
        try {
            server.close();
            Cleanup.forget(this);
        } catch (Exception e) {
            throw new IllegalStateException("could not stop " + target + ": " + e.getMessage(), e);
        }
    }
}
