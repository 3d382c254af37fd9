/**
 * Fenced writes. Exports both packages, which are API: {@code dev.mortise.lock.fencing} (JDBC fence
 * tables) and {@code dev.mortise.lock.fencing.redis} (Redis, through an optional Redisson).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.mortise.lock.fencing {
    requires transitive dev.mortise.lock;
    requires transitive java.sql;
    requires static transitive redisson;

    exports dev.mortise.lock.fencing;
    exports dev.mortise.lock.fencing.redis;
}
