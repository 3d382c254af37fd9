package dev.mortise.lock.redis;

/**
 * How the acquire script numbers a new holder of a key. Both are strictly increasing per key
 * while Redis keeps the key's fence counter; they differ when Redis loses it (a restart
 * without persistence, a failover that loses unreplicated writes, {@code FLUSHALL},
 * eviction). See {@code docs/redis.md}, "Fencing tokens".
 */
public enum FencingTokens {

    /**
     * The default: {@code max(counter + 1, server time in microseconds)}, the time read with
     * {@code TIME} inside the acquire script on the node that grants. A server that lost the
     * counter continues above every token it issued before, unless its clock stepped back
     * across the loss by more than the loss took. Tokens are large (about 1.8 × 10^15 in 2027)
     * and jump by the microseconds between grants.
     */
    SERVER_CLOCK,

    /**
     * The plain counter: 1, 2, 3… per key. Small numbers, but a server that loses the counter
     * starts again from 1, repeating tokens a fenced resource has already seen.
     */
    COUNTER
}
