/**
 * Fenced writes. Exports both packages, which are API: {@code dev.mortise.lock.fencing} (JDBC fence
 * tables) and {@code dev.mortise.lock.fencing.redis} (Redis, through Redisson, which is optional:
 * an application that fences Redis writes requires {@code redisson} itself).
 */
@SuppressWarnings("requires-automatic")
module dev.mortise.lock.fencing {
    requires transitive dev.mortise.lock;
    requires transitive java.sql;
    requires static redisson;

    exports dev.mortise.lock.fencing;
    exports dev.mortise.lock.fencing.redis;

    // The DDL resources (fences-*.sql) live in this package, and a module's resources are found by a
    // class loader (FenceDialect's own reading, and schema tools given FenceDialect.schemaResource())
    // only in packages open to every module.
    opens dev.mortise.lock.fencing;
}
