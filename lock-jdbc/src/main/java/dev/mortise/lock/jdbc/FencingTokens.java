package dev.mortise.lock.jdbc;

/**
 * How the acquire statement numbers a new holder of a key. Both are strictly increasing per
 * key while the lock row lives; they differ when the database loses the row or its latest
 * writes (a crash with {@code fsync} or {@code synchronous_commit} off, MySQL's
 * {@code innodb_flush_log_at_trx_commit} other than 1, a failover to a replica that missed
 * the latest grants, a restore from backup, a truncated or recreated table). See
 * {@code docs/jdbc.md}, "Fencing tokens".
 */
public enum FencingTokens {

    /**
     * The default: {@code max(token in the row + 1, the database's clock in microseconds since
     * 1970)}, computed inside the acquire statement (a new row starts at the clock). A database
     * that lost the row or the latest increments continues above every token it issued before,
     * unless its clock stepped back across the loss by more than the loss took. Tokens are large
     * (about 1.8 × 10^15 in 2027) and jump by the microseconds between grants.
     */
    SERVER_CLOCK,

    /**
     * The plain counter: 1, 2, 3… per key. Small numbers, but a lost row starts again at 1
     * and lost increments are handed out again.
     */
    COUNTER
}
