package dev.mortise.lock.redis.internal;

/**
 * The {@link dev.mortise.lock.spi.Grant#state()} of a shared (read) hold on one Redis deployment:
 * the key's names; the hold is the owner's field in {@link RedisKeys#readers()}. An exclusive hold's
 * state is the {@link RedisKeys} itself, as it always was, so the exclusive path allocates nothing more.
 */
record ReadHold(RedisKeys keys) {

    /** The names of a grant's key, whatever its mode. */
    public static RedisKeys keysOf(Object state) {
        return state instanceof ReadHold hold ? hold.keys() : (RedisKeys) state;
    }

    /** Whether a grant's state is a shared hold. */
    public static boolean isShared(Object state) {
        return state instanceof ReadHold;
    }
}
