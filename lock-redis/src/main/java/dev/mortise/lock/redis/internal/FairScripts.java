package dev.mortise.lock.redis.internal;

/**
 * The scripts of the fair mode: waiters queue on the server and release hands the lock
 * straight to the first live waiter inside the release script, so a hand-off costs one
 * push instead of push + retry. Keys, all under the lock's hash tag: the lock, the fence
 * counter, the queue (a sorted set of owners by arrival, server time in microseconds),
 * the waiters (a hash owner → "deadline-ms:lease-ms", with ":S" appended for a shared
 * request), the owner's cancelled marker and the readers (see {@link Scripts#SHARED}). A
 * waiter's entry lives until its deadline, which it refreshes on every retry; a dead waiter's
 * entry is purged when it reaches the head after its deadline (or when a reader looks past it),
 * and both keys expire with the last heartbeat.
 *
 * <p>Readers and writers queue in one order. A shared request goes ahead of the queued readers
 * but never of a live queued writer; when the lock comes free, the consecutive readers at the
 * head are handed their shares together, or the writer at the head the lock.
 */
public final class FairScripts {

    private FairScripts() {
    }

    /**
     * Drops dead entries at the head; {@code head(now)} returns the first live waiter, its lease,
     * deadline and mode ('S' or 'X'), or nil. {@code writer_ahead(now, owner)} returns the ms until
     * the first live exclusive waiter queued before {@code owner} (before everyone if not queued)
     * lapses, or nil, dropping dead entries it passes. {@code serve(now, readers_only)} hands the
     * free lock on: the leading readers their shares, else (unless {@code readers_only}) the writer
     * at the head the lock if no reader holds, publishing {@code "<owner> <token>"} per grant; it
     * returns how many it served.
     */
    private static final String PURGE = Scripts.NEXT_TOKEN + Scripts.SHARED + Scripts.HAND_OVER + """
            local function entry_of(entry)
              local sep = string.find(entry, ':', 1, true)
              local rest = string.sub(entry, sep + 1)
              local mode = 'X'
              local sep2 = string.find(rest, ':', 1, true)
              if sep2 then
                mode = string.sub(rest, sep2 + 1)
                rest = string.sub(rest, 1, sep2 - 1)
              end
              return tonumber(string.sub(entry, 1, sep - 1)), tonumber(rest), mode
            end
            local function head(now)
              while true do
                local first = redis.call('ZRANGE', KEYS[3], 0, 0)
                if #first == 0 then
                  return nil, nil
                end
                local entry = redis.call('HGET', KEYS[4], first[1])
                if entry then
                  local deadline, lease, mode = entry_of(entry)
                  if deadline > now then
                    return first[1], lease, deadline, mode
                  end
                end
                redis.call('ZREM', KEYS[3], first[1])
                redis.call('HDEL', KEYS[4], first[1])
              end
            end
            local function writer_ahead(now, owner)
              for _, waiter in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
                if waiter == owner then
                  return nil
                end
                local entry = redis.call('HGET', KEYS[4], waiter)
                local deadline, lease, mode = 0, 0, 'X'
                if entry then
                  deadline, lease, mode = entry_of(entry)
                end
                if deadline <= now then
                  redis.call('ZREM', KEYS[3], waiter)
                  redis.call('HDEL', KEYS[4], waiter)
                elseif mode ~= 'S' then
                  return deadline - now
                end
              end
              return nil
            end
            local function serve(now, readers_only)
              local served = 0
              while true do
                local first, lease, deadline, mode = head(now)
                if first == nil then
                  return served
                end
                if mode ~= 'S' then
                  if served == 0 and not readers_only and redis.call('EXISTS', KEYS[6]) == 0 then
                    redis.call('ZREM', KEYS[3], first)
                    redis.call('HDEL', KEYS[4], first)
                    hand_over(first, lease, ARGV[5])
                    served = 1
                  end
                  return served
                end
                redis.call('ZREM', KEYS[3], first)
                redis.call('HDEL', KEYS[4], first)
                next_token(KEYS[2], ARGV[5])
                local token = redis.call('GET', KEYS[2])
                add_reader(KEYS[6], first, lease, token, now)
                redis.call('PUBLISH', ARGV[2], first .. ' ' .. token)
                served = served + 1
              end
            end
            """;

    /**
     * KEYS: lock, fence, queue, waiters, cancelled marker of the owner, readers. ARGV: owner, lease ms,
     * enqueue (0/1), waiter TTL ms, clock (1: server-clock tokens, 0: counter; {@link Scripts#NEXT_TOKEN}),
     * mode (S shared, X exclusive). Granted {1, token} if the lock (or a share) is ours already (handed
     * over, or a retried request), or an exclusive request finds the lock free, no reader holding, and
     * is first in line (or no one waits), or a shared request finds no exclusive holder and no live
     * writer queued before it. Otherwise {0, ms, 0, fence counter} (the counter tells a waiter whether a
     * hand-off it hears of later came after this refusal), ms being the holder's PTTL (the readers' when they hold), or,
     * when the lock is free but another waiter comes first, the time until that waiter's entry lapses;
     * with enqueue, joins the queue (or refreshes our entry). A cancelled owner (see {@link #RELEASE},
     * mode 2) is refused with {0, -1}: nothing is taken or queued.
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
            local shared = ARGV[6] == 'S'
            if shared then
              local mine = redis.call('HGET', KEYS[6], ARGV[1])
              if mine then
                local expiry, token = reader_entry(mine)
                if expiry > now then
                  add_reader(KEYS[6], ARGV[1], ARGV[2], token, now)
                  return {1, tonumber(token)}
                end
              end
            end
            local wait = -1
            if holder == false then
              if shared then
                local writer = writer_ahead(now, ARGV[1])
                if writer == nil then
                  redis.call('ZREM', KEYS[3], ARGV[1])
                  redis.call('HDEL', KEYS[4], ARGV[1])
                  next_token(KEYS[2], ARGV[5])
                  local token = redis.call('GET', KEYS[2])
                  add_reader(KEYS[6], ARGV[1], ARGV[2], token, now)
                  return {1, tonumber(token)}
                end
                wait = writer
              elseif redis.call('EXISTS', KEYS[6]) == 1 then
                wait = redis.call('PTTL', KEYS[6])
              else
                local first, lease, deadline = head(now)
                if first == nil or first == ARGV[1] then
                  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
                  redis.call('ZREM', KEYS[3], ARGV[1])
                  redis.call('HDEL', KEYS[4], ARGV[1])
                  return {1, next_token(KEYS[2], ARGV[5])}
                end
                wait = deadline - now
              end
            else
              wait = redis.call('PTTL', KEYS[1])
            end
            if ARGV[3] == '1' then
              if redis.call('ZSCORE', KEYS[3], ARGV[1]) == false then
                local t = redis.call('TIME')
                redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000000 + tonumber(t[2]), ARGV[1])
              end
              local entry = (now + tonumber(ARGV[4])) .. ':' .. ARGV[2]
              if shared then
                entry = entry .. ':S'
              end
              redis.call('HSET', KEYS[4], ARGV[1], entry)
              redis.call('PEXPIRE', KEYS[3], ARGV[4])
              redis.call('PEXPIRE', KEYS[4], ARGV[4])
            end
            return {0, wait, 0, tonumber(redis.call('GET', KEYS[2]) or '0')}
            """);

    /**
     * KEYS: lock, fence, queue, waiters, cancelled marker of the owner, readers. ARGV: owner, channel,
     * mode (0 release, 1 leave, 2 cancel), marker TTL ms (mode 2), clock (as in {@link #ACQUIRE}).
     * Leave and cancel first remove the owner from the queue (a waiter giving up); cancel also sets the
     * owner's marker, so an acquire of that owner still on its way is refused when it arrives. Then, if
     * the owner holds the lock, deletes it, or if it holds a share, removes that; once the lock is free
     * and no reader holds, hands it on ({@code serve}: the leading readers together, or the first live
     * writer), or publishes "released" when no one waits. A waiter leaving the queue while the lock is
     * not held exclusively lets the readers queued behind it go. Returns 1 if the owner held the lock
     * or a live share, else 0.
     */
    public static final LuaScript RELEASE = LuaScript.of("fair-release", PURGE + """
            local left = false
            if ARGV[3] ~= '0' then
              left = redis.call('ZREM', KEYS[3], ARGV[1]) == 1
              redis.call('HDEL', KEYS[4], ARGV[1])
            end
            if ARGV[3] == '2' then
              redis.call('SET', KEYS[5], '1', 'PX', ARGV[4])
            end
            local held = 0
            local now = now_ms()
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('DEL', KEYS[1])
              held = 1
            else
              local mine = redis.call('HGET', KEYS[6], ARGV[1])
              if mine == false then
                if left and redis.call('EXISTS', KEYS[1]) == 0 then
                  serve(now, true)
                end
                return 0
              end
              redis.call('HDEL', KEYS[6], ARGV[1])
              if reader_entry(mine) > now then
                held = 1
              end
              if prune_readers(KEYS[6], now) > 0 then
                return held
              end
            end
            if serve(now, false) == 0 then
              redis.call('PUBLISH', ARGV[2], 'released')
            end
            return held
            """);
}
