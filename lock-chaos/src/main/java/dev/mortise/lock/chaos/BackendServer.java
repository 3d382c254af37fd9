package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.EtcdCluster;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.ServerProcess;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * The real server (or cluster) a backend locks on, started for one backend × fault and
 * stopped by {@link #close()}: the lock servers are separate from the ledger's PostgreSQL, so
 * a fault on one never touches the other. The topology follows the fault: a 3-member etcd
 * cluster or ZooKeeper ensemble for {@link Fault#LEADER_KILL}, a Redis without persistence
 * and a PostgreSQL without fsync for {@link Fault#SERVER_KILL_VOLATILE}, a server whose wall clock
 * jumps for {@link Fault#SERVER_CLOCK_JUMP} (etcd then under a ptrace clock tracer, ZooKeeper in a JVM
 * of its own, {@link ZooKeeperJvm}; otherwise in the controller's, curator-test), durable single
 * servers otherwise.
 */
public final class BackendServer implements AutoCloseable {

    static {
        // The leader of a ZooKeeper ensemble is found with the 'srvr' four-letter word, which
        // servers answer only when whitelisted; the ensemble runs in this JVM and reads this.
        if (System.getProperty("zookeeper.4lw.commands.whitelist") == null) {
            System.setProperty("zookeeper.4lw.commands.whitelist", "srvr,mntr,ruok");
        }
    }

    private final String backend;
    private final AutoCloseable server;
    private final String description;
    /** The server's wall-clock offset ({@link Fault#SERVER_CLOCK_JUMP}), or null: the machine's clock. */
    private final FakeClock.OffsetFile clock;

    /** What workers connect to when it is not built from the endpoints (a Sentinel URL), or null. */
    private final String fixedTarget;

    private BackendServer(String backend, AutoCloseable server, String description) {
        this(backend, server, description, null, null);
    }

    private BackendServer(String backend, AutoCloseable server, String description, FakeClock.OffsetFile clock) {
        this(backend, server, description, clock, null);
    }

    private BackendServer(String backend, AutoCloseable server, String description, FakeClock.OffsetFile clock,
                          String fixedTarget) {
        this.backend = backend;
        this.server = server;
        this.description = description;
        this.clock = clock;
        this.fixedTarget = fixedTarget;
        Cleanup.register(this);
    }

    /**
     * A failover with a lagging replica ({@link Fault#FAILOVER}): see {@link RedisFailover#failover};
     * the replica lags for {@code lagMillis}. Returns the killed master's name and puts the time
     * Sentinel named the new master (epoch millis) in {@code promotedAt[0]}.
     */
    public String failover(long lagMillis, long[] promotedAt) throws InterruptedException {
        if (!(server instanceof RedisFailover group)) {
            throw new IllegalStateException("failover needs a Redis master, replica and Sentinel, not " + description);
        }
        return "master :" + group.failover(lagMillis, promotedAt);
    }

    /** The launcher of the lock server (a lock-tck {@code ServerProcess}, a Curator server or cluster, ...). */
    AutoCloseable server() {
        return server;
    }

    /**
     * A durable Redis or PostgreSQL, a one-member etcd or a ZooKeeper server, whose wall clock
     * follows an offset file, for {@link Fault#SERVER_CLOCK_JUMP}: Redis through the clock shim,
     * PostgreSQL through libfaketime, etcd under the clock tracer (a Go binary reads the clock
     * without libc, out of reach of a preload library), ZooKeeper through libfaketime on a JVM of
     * its own ({@link ZooKeeperJvm}: the in-controller server of the other runs would jump the
     * controller's clock with it) ({@link FakeClock}).
     */
    private static BackendServer withJumpingClock(String backend) {
        FakeClock.OffsetFile clock = FakeClock.OffsetFile.create();
        try {
            ServerProcess server = switch (backend) {
                case "redis" -> new RedisServer().persistent().environment(clock.shimEnvironment());
                case "jdbc" -> new PostgresServer().durable().environment(clock.libfaketimeEnvironment());
                case "zookeeper" -> new ZooKeeperJvm(ChaosRun.workerClasspath())
                        .environment(clock.libfaketimeEnvironment());
                case "etcd" -> new EtcdServer().commandPrefix(clock.tracerCommand());
                default -> throw new IllegalArgumentException("server-clock-jump runs on redis, jdbc, etcd and"
                        + " zookeeper, not on " + backend + "; leave server-clock-jump out of --faults for it");
            };
            try {
                server.start();
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
            return new BackendServer(backend, server, switch (backend) {
                case "redis" -> "redis-server, AOF appendfsync always, wall clock jumping (LD_PRELOAD clock shim)";
                case "jdbc" -> "PostgreSQL, fsync and synchronous_commit on, wall clock jumping (libfaketime)";
                case "etcd" -> "etcd, one member, wall clock jumping (ptrace clock tracer)";
                default -> "ZooKeeper, one server in its own JVM (curator-test), wall clock jumping (libfaketime)";
            }, clock);
        } catch (RuntimeException e) {
            clock.close();
            throw e;
        }
    }

    /**
     * Moves the server's wall clock to {@code offsetMillis} off the machine's (its monotonic
     * clock stays); only for a server started for {@link Fault#SERVER_CLOCK_JUMP}.
     */
    public void jumpClock(long offsetMillis) {
        if (clock == null) {
            throw new IllegalStateException("the clock of " + description + " cannot jump: it was not started"
                    + " for server-clock-jump");
        }
        clock.set(offsetMillis);
    }

    /** Starts the server {@code backend} locks on for a run of {@code fault}, and waits until it is ready. */
    public static BackendServer start(String backend, Fault fault) {
        boolean durable = fault != Fault.SERVER_KILL_VOLATILE;
        boolean cluster = fault == Fault.LEADER_KILL;
        if (fault == Fault.SERVER_CLOCK_JUMP) {
            return withJumpingClock(backend);
        }
        if (fault == Fault.FAILOVER || fault == Fault.FAILOVER_WAIT) {
            if (!backend.equals("redis")) {
                throw new IllegalArgumentException(fault.label() + " runs on redis (Sentinel), not on " + backend);
            }
            boolean wait = fault == Fault.FAILOVER_WAIT;
            RedisFailover group = new RedisFailover();
            return new BackendServer(backend, group, "Redis master + replica + Sentinel, no persistence"
                    + (wait ? ", waitForReplicas(1, 500 ms)" : ", no WAIT"), null, group.target(wait));
        }
        return switch (backend) {
            case "redis" -> {
                RedisServer redis = durable ? new RedisServer().persistent() : new RedisServer();
                redis.start();
                yield new BackendServer(backend, redis, durable ? "redis-server, AOF appendfsync always"
                        : "redis-server, no persistence");
            }
            case "jdbc" -> {
                PostgresServer postgres = durable ? new PostgresServer().durable() : new PostgresServer();
                postgres.start();
                yield new BackendServer(backend, postgres, durable ? "PostgreSQL, fsync and synchronous_commit on"
                        : "PostgreSQL, fsync and synchronous_commit off");
            }
            case "etcd" -> {
                if (cluster) {
                    yield new BackendServer(backend, new EtcdCluster(3).start(), "etcd, 3-member cluster");
                }
                EtcdServer etcd = new EtcdServer();
                etcd.start();
                yield new BackendServer(backend, etcd, "etcd, one member");
            }
            case "zookeeper" -> {
                // In this JVM (curator-test), with a 500 ms tick: the server then grants session
                // timeouts from 1 s, so a session can be as short as the 2 s lease.
                try {
                    if (cluster) {
                        List<InstanceSpec> specs = new ArrayList<>();
                        for (int id = 1; id <= 3; id++) {
                            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, 500, -1));
                        }
                        TestingCluster ensemble = new TestingCluster(specs);
                        ensemble.start();
                        yield new BackendServer(backend, ensemble, "ZooKeeper, 3-server ensemble (curator-test)");
                    }
                    TestingServer zookeeper = new TestingServer(
                            new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                    yield new BackendServer(backend, zookeeper, "ZooKeeper, one server (curator-test)");
                } catch (Exception e) {
                    throw new IllegalStateException("could not start ZooKeeper: " + e.getMessage(), e);
                }
            }
            default -> throw new IllegalArgumentException("unknown backend '" + backend + "', expected one of "
                    + Backends.SUPPORTED);
        };
    }

    /** What the server is and how it keeps its data, for the report. */
    public String description() {
        return description;
    }

    /** The {@code host:port} of every member clients connect to. */
    public List<String> endpoints() {
        if (server instanceof EtcdCluster etcd) {
            return etcd.endpoints().stream().map(e -> e.substring("http://".length())).toList();
        }
        if (server instanceof ServerProcess process) {
            return List.of("127.0.0.1:" + process.port());
        }
        String connect = server instanceof TestingCluster ensemble ? ensemble.getConnectString()
                : ((TestingServer) server).getConnectString();
        return List.of(connect.split(","));
    }

    /** What the workers pass to {@link Backends#create}: the server's own addresses. */
    public String target() {
        return fixedTarget != null ? fixedTarget : target(endpoints());
    }

    /**
     * The target string for the given {@code host:port}s in place of the server's (one per
     * {@link #endpoints()} entry, in order): how a worker is pointed at its proxies.
     */
    public String target(List<String> hostPorts) {
        return switch (backend) {
            case "redis" -> "redis://" + hostPorts.get(0);
            case "jdbc" -> "jdbc:postgresql://" + hostPorts.get(0) + "/postgres";
            case "etcd" -> String.join(",", hostPorts.stream().map(h -> "http://" + h).toList());
            default -> String.join(",", hostPorts);
        };
    }

    /**
     * kill -9 of the server, {@code downMillis} down, then a restart on the same port and data.
     * ZooKeeper in this JVM is stopped (no kill -9) and restarted with its data; in a JVM of its
     * own ({@link ZooKeeperJvm}) it is killed like any server process.
     */
    public void killAndRestart(long downMillis) throws Exception {
        if (server instanceof ServerProcess process) {
            process.kill();
            Thread.sleep(downMillis);
            process.start();
        } else if (server instanceof TestingServer zookeeper) {
            zookeeper.stop();
            Thread.sleep(downMillis);
            zookeeper.restart();
        } else {
            throw new IllegalStateException("server-kill runs on a single server, not on " + description);
        }
    }

    /**
     * Kills the leader of the cluster ({@code kill -9} of the etcd member; the ZooKeeper
     * server in this JVM is shut down at once), waits {@code downMillis}, restarts it on the
     * same ports and data, and returns which member it was.
     */
    public String killLeaderAndRestart(long downMillis) throws Exception {
        if (server instanceof EtcdCluster etcd) {
            EtcdServer leader = EtcdGateway.leader(etcd);
            leader.kill();
            Thread.sleep(downMillis);
            leader.start();
            return leader.memberName();
        }
        if (server instanceof TestingCluster ensemble) {
            InstanceSpec leader = ZooKeeperProbe.leader(ensemble);
            ensemble.killServer(leader);
            Thread.sleep(downMillis);
            ensemble.restartServer(leader);
            return "zk" + leader.getServerId();
        }
        throw new IllegalStateException("leader-kill needs a cluster, not " + description);
    }

    /**
     * Lock entries still on the server - after every worker has ended and the lease has run
     * out, orphans: Redis {@code mortise:lock:*} keys; JDBC unexpired owned rows of
     * {@code mortise_locks}; etcd keys under {@code mortise/locks/} (holders and waiters);
     * ZooKeeper nodes under each key's node in {@code /mortise/locks} (holders and waiters).
     */
    public long heldLocks() throws Exception {
        if (server instanceof RedisFailover group) {
            return group.lockKeys();
        }
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
        if (server instanceof EtcdServer || server instanceof EtcdCluster) {
            return EtcdGateway.lockKeys(endpoints());
        }
        return ZooKeeperProbe.lockNodes(target());
    }

    @Override
    public void close() {
        try {
            server.close();
            if (clock != null) {
                clock.close();
            }
            Cleanup.forget(this);
        } catch (Exception e) {
            throw new IllegalStateException("could not stop " + description + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return description + " " + endpoints();
    }
}
