package dev.mortise.lock.redis.internal;

/**
 * The Lua scripts of the Redis backend. Each runs atomically on the node that owns the
 * lock's slot; every key a script touches shares one hash tag, so Redis Cluster accepts it.
 * Lock keys hold the owner id and carry the lease as their TTL; fence keys are plain
 * counters with no TTL, so a token survives release and expiry.
 */
public final class Scripts {

    private Scripts() {
    }

    /**
     * Lua: {@code next_token(fence, clock)} bumps the fence counter for a new holder and returns
     * the token. With {@code clock == '1'} the token is {@code max(counter + 1, TIME in µs)}
     * (server-clock tokens): a server that lost the counter (restart without persistence,
     * failover that lost unreplicated writes) continues above every token it issued, unless
     * its clock stepped back across the loss by more than the loss took. With {@code '0'} it is
     * {@code counter + 1}. The time goes into the key as an exact decimal string, built from
     * {@code TIME}'s two fields, never through a Lua number (which would print as 1.8e+15);
     * the number compared and returned stays below 2^53, so it is exact. {@code TIME} in a
     * script that then writes needs effects replication: the default from Redis 5, the only
     * mode from Redis 7.
     */
    static final String NEXT_TOKEN = """
            local function next_token(fence, clock)
              if clock == '1' then
                local t = redis.call('TIME')
                local micros = t[1] .. string.format('%06d', tonumber(t[2]))
                if tonumber(micros) > tonumber(redis.call('GET', fence) or '0') then
                  redis.call('SET', fence, micros)
                  return tonumber(micros)
                end
              end
              return redis.call('INCR', fence)
            end
            """;

    /**
     * KEYS: lock, fence, cancelled marker of the owner. ARGV: owner, lease ms, clock (1: server-clock
     * tokens, 0: counter; see {@link #NEXT_TOKEN}). Takes the lock if free or already the owner's
     * and returns {1, token}; otherwise {0, holder's PTTL}. A new holder bumps the fence counter;
     * the same owner asking again (a retried request) keeps its token. An owner whose attempt was given up ({@link #CANCEL}) is refused with
     * {0, -1} and nothing is written: the attempt arrived after its own clean-up.
     */
    public static final LuaScript ACQUIRE = LuaScript.of("acquire", NEXT_TOKEN + """
            if redis.call('EXISTS', KEYS[3]) == 1 then
              return {0, -1}
            end
            local holder = redis.call('GET', KEYS[1])
            if holder == false then
              redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
              return {1, next_token(KEYS[2], ARGV[3])}
            end
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return {1, tonumber(redis.call('GET', KEYS[2]) or '0')}
            end
            return {0, redis.call('PTTL', KEYS[1])}
            """);

    /**
     * KEYS: lock. ARGV: owner, release channel. Deletes the lock only if the owner still
     * holds it, and tells waiters on the channel. Returns 1 if it was the owner's, else 0.
     */
    public static final LuaScript RELEASE = LuaScript.of("release", """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('DEL', KEYS[1])
              redis.call('PUBLISH', ARGV[2], 'released')
              return 1
            end
            return 0
            """);

    /**
     * KEYS: lock, cancelled marker of the owner. ARGV: owner, release channel, marker TTL ms,
     * always (1: mark in any case; 0: only if the lock is not the owner's). The clean-up of an
     * attempt whose answer may never have come, or may still come: deletes the lock if the owner
     * holds it (and tells waiters), and leaves the marker that makes an acquire of that owner
     * arriving later a no-op. Returns 1 if the owner held the lock, else 0.
     */
    public static final LuaScript CANCEL = LuaScript.of("cancel", """
            local ours = redis.call('GET', KEYS[1]) == ARGV[1]
            if ours then
              redis.call('DEL', KEYS[1])
              redis.call('PUBLISH', ARGV[2], 'released')
            end
            if ARGV[4] == '1' or not ours then
              redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
            end
            if ours then
              return 1
            end
            return 0
            """);

    /**
     * KEYS: lock keys (one slot). ARGV: lease ms, then one owner per key. Extends each lock
     * still held by its owner; returns one 1 (renewed) or 0 (gone) per key, in order.
     */
    public static final LuaScript RENEW = LuaScript.of("renew", """
            local result = {}
            for i, key in ipairs(KEYS) do
              if redis.call('GET', key) == ARGV[i + 1] then
                redis.call('PEXPIRE', key, ARGV[1])
                result[i] = 1
              else
                result[i] = 0
              end
            end
            return result
            """);

    /**
     * KEYS: lock, fence. ARGV: owner, token. Redlock's second round: raises the fence
     * counter to at least the token (on every node, held or not, so that more nodes carry
     * it), and returns 1 if the owner still holds the lock here, else 0.
     */
    public static final LuaScript RAISE_FENCE = LuaScript.of("raise-fence", """
            local current = tonumber(redis.call('GET', KEYS[2]) or '0')
            if current < tonumber(ARGV[2]) then
              redis.call('SET', KEYS[2], ARGV[2])
            end
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return 1
            end
            return 0
            """);

    /** No keys: one cheap round trip for health checks. */
    public static final LuaScript PING = LuaScript.of("ping", "return 1");
}
