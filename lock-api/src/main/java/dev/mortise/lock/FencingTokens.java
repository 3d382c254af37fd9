package dev.mortise.lock;

/**
 * How a backend that keeps its own per-key fence counter (Redis, Redlock, JDBC) numbers a new
 * holder of a key, that is, which {@link LockLease#fencingToken() fencing tokens} it hands out.
 * Both schemes are strictly increasing per key for as long as the server keeps the counter;
 * they differ when the server loses it (Redis: a restart without persistence, a failover that
 * loses unreplicated writes, {@code FLUSHALL}, eviction; a database: a crash with
 * {@code fsync}/{@code synchronous_commit} off, a failover to a replica that missed the latest
 * grants, a restore from backup, a truncated or recreated lock table).
 *
 * <p>Passed to the builders of those backends ({@code RedisLockBackendBuilder},
 * {@code RedlockBackendBuilder}, {@code JdbcLockBackendBuilder}); with the Spring Boot starter,
 * set {@code mortise.lock.redis.fencing-tokens} / {@code mortise.lock.jdbc.fencing-tokens} to
 * {@code server-clock} or {@code counter}. Backends whose tokens come from the server's own
 * revision numbers (etcd, ZooKeeper) do not take it. See {@code docs/redis.md} and
 * {@code docs/jdbc.md}, "Fencing tokens".
 */
public enum FencingTokens {

    /**
     * The default: {@code max(counter + 1, the server's clock in microseconds since 1970)},
     * computed on the server inside the acquire script or statement (Redis reads {@code TIME}
     * on the node that grants; a new database row starts at the clock). A server that lost
     * the counter continues above every token it issued before, unless its clock stepped back
     * across the loss by more than the loss took. Tokens are large (about 1.8 × 10^15 in 2027)
     * and jump by the microseconds between grants.
     */
    SERVER_CLOCK,

    /**
     * The plain counter: 1, 2, 3… per key. Small numbers, but a server that loses the counter
     * (or its latest increments) starts again from what survived, handing out tokens a fenced
     * resource has already seen.
     */
    COUNTER
}
