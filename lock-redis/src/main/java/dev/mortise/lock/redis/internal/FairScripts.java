package dev.mortise.lock.redis.internal;

/**
 * The scripts of the fair mode: waiters queue on the server and release hands the lock
 * straight to the first live waiter inside the release script, so a hand-off costs one
 * push instead of push + retry. Keys, all under the lock's hash tag: the lock, the fence
 * counter, the queue (a sorted set of owners by arrival, server time in microseconds)
 * and the waiters (a hash owner → "deadline-ms:lease-ms"). A waiter's entry lives until its
 * deadline, which it refreshes on every retry; a dead waiter's entry is purged when it
 * reaches the head after its deadline, and both keys expire with the last heartbeat.
 */
public final class FairScripts {

    private FairScripts() {
    }

    /** Drops dead entries at the head; returns the first live waiter and its entry, or nil. */
    private static final String PURGE = Scripts.NEXT_TOKEN + """
            local function now_ms()
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            local function head(now)
              while true do
                local first = redis.call('ZRANGE', KEYS[3], 0, 0)
                if #first == 0 then
                  return nil, nil
                end
                local entry = redis.call('HGET', KEYS[4], first[1])
                if entry then
                  local sep = string.find(entry, ':', 1, true)
                  local deadline = tonumber(string.sub(entry, 1, sep - 1))
                  if deadline > now then
                    return first[1], tonumber(string.sub(entry, sep + 1)), deadline
                  end
                end
                redis.call('ZREM', KEYS[3], first[1])
                redis.call('HDEL', KEYS[4], first[1])
              end
            end
            """;

    /**
     * KEYS: lock, fence, queue, waiters, cancelled marker of the owner. ARGV: owner, lease ms,
     * enqueue (0/1), waiter TTL ms, clock (1: server-clock tokens, 0: counter; {@link Scripts#NEXT_TOKEN}).
     * Granted {1, token} if the lock is ours (handed over
     * already) or free and we are first in line (or no one waits). Otherwise {0, ms}: the
     * holder's PTTL, or, when the lock is free but another waiter is first, the time until that
     * waiter's entry lapses; with enqueue, joins the queue (or refreshes our entry). A cancelled
     * owner (see {@link #RELEASE}, mode 2) is refused with {0, -1}: nothing is taken or queued.
     */
    public static final LuaScript ACQUIRE = LuaScript.of("fair-acquire", PURGE + """
            if redis.call('EXISTS', KEYS[5]) == 1 then
              return {0, -1}
            end
            local holder = redis.call('GET', KEYS[1])
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return {1, tonumber(redis.call('GET', KEYS[2]) or '0')}
            end
            local now = now_ms()
            local wait = -1
            if holder == false then
              local first, lease, deadline = head(now)
              if first == nil or first == ARGV[1] then
                redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
                redis.call('ZREM', KEYS[3], ARGV[1])
                redis.call('HDEL', KEYS[4], ARGV[1])
                return {1, next_token(KEYS[2], ARGV[5])}
              end
              wait = deadline - now
            else
              wait = redis.call('PTTL', KEYS[1])
            end
            if ARGV[3] == '1' then
              if redis.call('ZSCORE', KEYS[3], ARGV[1]) == false then
                local t = redis.call('TIME')
                redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000000 + tonumber(t[2]), ARGV[1])
              end
              redis.call('HSET', KEYS[4], ARGV[1], (now + tonumber(ARGV[4])) .. ':' .. ARGV[2])
              redis.call('PEXPIRE', KEYS[3], ARGV[4])
              redis.call('PEXPIRE', KEYS[4], ARGV[4])
            end
            return {0, wait}
            """);

    /**
     * KEYS: lock, fence, queue, waiters, cancelled marker of the owner. ARGV: owner, channel,
     * mode (0 release, 1 leave, 2 cancel), marker TTL ms (mode 2), clock (as in {@link #ACQUIRE}).
     * Leave and cancel first remove
     * the owner from the queue (a waiter giving up); cancel also sets the owner's marker, so an
     * acquire of that owner still on its way is refused when it arrives. Then, if the owner
     * holds the lock, deletes it and hands it to the first live waiter (SET with that waiter's
     * lease, INCR, PUBLISH "owner token"), or publishes "released" when no one waits. Returns 1
     * if the owner held the lock, else 0.
     */
    public static final LuaScript RELEASE = LuaScript.of("fair-release", PURGE + """
            if ARGV[3] ~= '0' then
              redis.call('ZREM', KEYS[3], ARGV[1])
              redis.call('HDEL', KEYS[4], ARGV[1])
            end
            if ARGV[3] == '2' then
              redis.call('SET', KEYS[5], '1', 'PX', ARGV[4])
            end
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return 0
            end
            redis.call('DEL', KEYS[1])
            local successor, lease = head(now_ms())
            if successor == nil then
              redis.call('PUBLISH', ARGV[2], 'released')
              return 1
            end
            redis.call('SET', KEYS[1], successor, 'PX', lease)
            redis.call('ZREM', KEYS[3], successor)
            redis.call('HDEL', KEYS[4], successor)
            next_token(KEYS[2], ARGV[5])
            -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
            redis.call('PUBLISH', ARGV[2], successor .. ' ' .. redis.call('GET', KEYS[2]))
            return 1
            """);
}
