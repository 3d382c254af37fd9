package dev.mortise.lock.jdbc.internal;

/**
 * All the statements of one backend, in its dialect (built by {@link Dialects#statements}); each
 * grant of any kind takes the next token of its key's one counter. Immutable and thread-safe.
 *
 * @param locks      exclusive holds
 * @param shared     shared (read) holds
 * @param waits      what waits leave on a row: a writer's marker, PostgreSQL's waiter records
 * @param permits    native semaphores
 * @param batch      the all-or-nothing multi-key acquire
 * @param inspection the read of one key's state
 */
public record DialectSql(LockSql locks, SharedSql shared, WaitSql waits, PermitSql permits, BatchSql batch,
                         InspectSql inspection) {
}
