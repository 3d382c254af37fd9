package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.ServerProcess;

/**
 * The real server a backend locks on, started for a run and stopped by {@link #close()}: the
 * lock servers are separate from the ledger's PostgreSQL, so a fault on one never touches the
 * other.
 */
public final class BackendServer implements AutoCloseable {

    private final ServerProcess server;
    private final String target;

    private BackendServer(ServerProcess server, String target) {
        this.server = server;
        this.target = target;
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
            default -> throw new IllegalArgumentException("unknown backend '" + backend + "', expected one of "
                    + Backends.SUPPORTED);
        };
    }

    /** What the workers pass to {@link Backends#create}: the Redis address or the JDBC URL. */
    public String target() {
        return target;
    }

    public ServerProcess server() {
        return server;
    }

    @Override
    public void close() {
        server.close();
    }
}
