package dev.mortise.lock.redis.internal;

/**
 * The Lua scripts of the Redis backend. Each runs atomically on the node that owns the
 * lock's slot; every key a script touches shares one hash tag, so Redis Cluster accepts it.
 * Lock keys hold the exclusive owner id and carry the lease as their TTL; readers keys hold the
 * shared owners (see {@link #SHARED}); fence keys are plain counters with no TTL, so a token survives
 * release and expiry, and every grant, shared or exclusive, takes its token from the one counter.
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

    /** Lua: {@code now_ms()}, the server's clock in ms. */
    static final String NOW_MS = """
            local function now_ms()
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            """;

    /**
     * Lua (after {@link #NEXT_TOKEN}): {@code hand_over(waiter, lease, clock)} gives the free lock
     * (KEYS[1]) to a waiter inside a release: sets it to the waiter with the waiter's lease, bumps the
     * fence counter (KEYS[2]) and publishes {@code "<waiter> <token>"} on the release channel (ARGV[2]).
     * The caller removes the waiter's own entries. Shared by {@link #RELEASE_HANDING} and fair mode.
     */
    static final String HAND_OVER = """
            local function hand_over(waiter, lease, clock)
              redis.call('SET', KEYS[1], waiter, 'PX', lease)
              next_token(KEYS[2], clock)
              -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
              redis.call('PUBLISH', ARGV[2], waiter .. ' ' .. redis.call('GET', KEYS[2]))
            end
            """;

    /**
     * Lua helpers of shared (read) holds. {@code now_ms()} is the server's clock in ms. A key's readers
     * are a hash owner → {@code "<expiry-ms>:<token>"} (expiry by the server's clock; the token as the
     * exact decimal string the fence counter held); a hash field has no TTL of its own, so the hash's
     * PTTL is kept at the latest expiry: the hash exists exactly while some reader's lease runs, and an
     * exclusive request needs only {@code EXISTS}. {@code prune_readers} drops expired readers, resets
     * the PTTL to the latest expiry (or deletes the hash) and returns how many readers are live.
     * A semaphore's key (permit holds, see {@link #ACQUIRE_PERMITS}) keeps its readers as
     * {@code "<expiry-ms>:<token>:<count>"} and its permit count in the field {@code #limit}, which
     * {@code prune_readers} skips (and deletes with the hash when no reader is live).
     * Waiting writers (non-fair mode) are a hash owner → deadline-ms, kept the same way:
     * {@code live_writers} drops lapsed markers and returns the ms until the last live one lapses (0: none).
     */
    static final String SHARED = NOW_MS + """
            local function reader_entry(entry)
              local sep = string.find(entry, ':', 1, true)
              return tonumber(string.sub(entry, 1, sep - 1)), string.sub(entry, sep + 1)
            end
            local function add_reader(readers, owner, lease, token, now)
              redis.call('HSET', readers, owner, (now + tonumber(lease)) .. ':' .. token)
              if redis.call('PTTL', readers) < tonumber(lease) then
                redis.call('PEXPIRE', readers, lease)
              end
            end
            local function prune_readers(readers, now)
              local all = redis.call('HGETALL', readers)
              local latest, live = 0, 0
              for i = 1, #all, 2 do
                if string.sub(all[i], 1, 1) ~= '#' then -- '#limit' is a semaphore's count, not a reader
                  local expiry = reader_entry(all[i + 1])
                  if expiry <= now then
                    redis.call('HDEL', readers, all[i])
                  else
                    live = live + 1
                    if expiry > latest then
                      latest = expiry
                    end
                  end
                end
              end
              if live > 0 then
                redis.call('PEXPIRE', readers, latest - now)
              else
                redis.call('DEL', readers) -- usually gone with its last field; a semaphore's count goes too
              end
              return live
            end
            local function live_writers(writers, now)
              local all = redis.call('HGETALL', writers)
              local latest = now
              for i = 1, #all, 2 do
                local deadline = tonumber(all[i + 1])
                if deadline <= now then
                  redis.call('HDEL', writers, all[i])
                elseif deadline > latest then
                  latest = deadline
                end
              end
              return latest - now
            end
            """;

    /**
     * KEYS: lock, fence, cancelled marker of the owner, readers, waiting writers, and optionally the
     * hand-off offers. ARGV: owner, lease ms, clock (1: server-clock tokens, 0: counter; see
     * {@link #NEXT_TOKEN}), marker TTL ms (0: leave no marker), wait left ms, and optionally the hand-off
     * window ms (absent or 0: offer none). The exclusive acquire: takes the lock if it is free (no exclusive holder and
     * no live reader) or already the owner's, and returns {1, token}; otherwise {0, holder's PTTL, 0, fence
     * counter}, and {0, readers' PTTL, 1, fence counter} when readers hold it (the counter tells a waiter
     * whether a hand-off it hears of later came after this refusal). A new holder bumps the fence counter; the same owner
     * asking again (a retried request) keeps its token. A waiting request (marker TTL above 0) that is
     * refused leaves its "writer waiting" marker, which refuses new readers until it lapses: for at most
     * the wait left, and the marker TTL after the blocking hold's PTTL (after now when readers block, so
     * the waiter refreshes it); a grant removes it. With a hand-off window, a marking request also offers
     * to take the lock straight from the holder's release ({@link #RELEASE_HANDING}): the offer, owner →
     * {@code "<fresh-until-ms>:<lease-ms>"}, is fresh for the window and a grant removes it. An owner whose
     * attempt was given up ({@link #CANCEL}) is refused with {0, -1} and nothing is written: the attempt
     * arrived after its own clean-up.
     */
    public static final LuaScript ACQUIRE = LuaScript.of("acquire", NEXT_TOKEN + SHARED + """
            if redis.call('EXISTS', KEYS[3]) == 1 then
              return {0, -1}
            end
            local offers = ARGV[6] ~= nil and ARGV[6] ~= '0'
            local function mark(after)
              local ttl = math.min(tonumber(ARGV[5]), after + tonumber(ARGV[4]))
              local now = now_ms()
              redis.call('HSET', KEYS[5], ARGV[1], now + ttl)
              if redis.call('PTTL', KEYS[5]) < ttl then
                redis.call('PEXPIRE', KEYS[5], ttl)
              end
              if offers then
                local window = math.min(tonumber(ARGV[6]), ttl)
                redis.call('HSET', KEYS[6], ARGV[1], (now + window) .. ':' .. ARGV[2])
                if redis.call('PTTL', KEYS[6]) < window then
                  redis.call('PEXPIRE', KEYS[6], window)
                end
              end
            end
            local holder = redis.call('GET', KEYS[1])
            if holder == false then
              if redis.call('EXISTS', KEYS[4]) == 0 then
                redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
                if ARGV[4] ~= '0' then
                  redis.call('HDEL', KEYS[5], ARGV[1]) -- a hash goes with its last field
                  if offers then
                    redis.call('HDEL', KEYS[6], ARGV[1])
                  end
                end
                return {1, next_token(KEYS[2], ARGV[3])}
              end
              local readers = redis.call('PTTL', KEYS[4])
              if ARGV[4] ~= '0' then
                mark(0)
              end
              return {0, readers, 1, tonumber(redis.call('GET', KEYS[2]) or '0')}
            end
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return {1, tonumber(redis.call('GET', KEYS[2]) or '0')}
            end
            local pttl = redis.call('PTTL', KEYS[1])
            if ARGV[4] ~= '0' then
              mark(math.max(pttl, 0))
            end
            return {0, pttl, 0, tonumber(redis.call('GET', KEYS[2]) or '0')}
            """);

    /**
     * KEYS: lock, fence, cancelled marker of the owner, readers, waiting writers. ARGV: owner, lease ms,
     * clock. The shared acquire: joins the readers if no one holds the lock exclusively and no writer's
     * marker is live, bumping the fence counter, and returns {1, token}; the same owner asking again keeps
     * its token. Otherwise {0, ms}: the exclusive holder's PTTL, or the time until the last writer's marker
     * lapses. A cancelled owner is refused with {0, -1} and nothing is written.
     */
    public static final LuaScript ACQUIRE_SHARED = LuaScript.of("acquire-shared", NEXT_TOKEN + SHARED + """
            if redis.call('EXISTS', KEYS[3]) == 1 then
              return {0, -1}
            end
            local now = now_ms()
            local mine = redis.call('HGET', KEYS[4], ARGV[1])
            if mine then
              local expiry, token = reader_entry(mine)
              if expiry > now then
                add_reader(KEYS[4], ARGV[1], ARGV[2], token, now)
                if expiry > now + tonumber(ARGV[2]) then
                  prune_readers(KEYS[4], now)
                end
                return {1, tonumber(token)}
              end
            end
            if redis.call('EXISTS', KEYS[1]) == 1 then
              return {0, redis.call('PTTL', KEYS[1])}
            end
            local writers = live_writers(KEYS[5], now)
            if writers > 0 then
              return {0, writers}
            end
            next_token(KEYS[2], ARGV[3])
            -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
            local token = redis.call('GET', KEYS[2])
            add_reader(KEYS[4], ARGV[1], ARGV[2], token, now)
            return {1, tonumber(token)}
            """);

    /**
     * KEYS: lock, fence, cancelled marker of the owner, readers. ARGV: owner, lease ms, clock, count,
     * limit, follow (1: a request already waiting, which takes the stored limit; 0: a new one, which
     * must match it). A semaphore's permit hold: a share of the readers hash, stored as
     * {@code "<expiry>:<token>:<count>"}, granted when no one holds the lock exclusively, every live
     * reader is a permit hold, and their counts plus this count fit under the limit kept in the hash's
     * {@code #limit} field (the request's own when no permit is held). Replies {1, token} granted (the
     * same owner asking again keeps its token), {0, ms until the soonest holder's lease ends (or -1)}
     * busy, {2, stored limit} when a new request's limit differs from the stored one while permits are
     * held (nothing written). A cancelled owner is refused with {0, -1}.
     */
    public static final LuaScript ACQUIRE_PERMITS = LuaScript.of("acquire-permits", NEXT_TOKEN + SHARED + """
            if redis.call('EXISTS', KEYS[3]) == 1 then
              return {0, -1}
            end
            local now = now_ms()
            local mine = redis.call('HGET', KEYS[4], ARGV[1])
            if mine then
              local expiry, rest = reader_entry(mine)
              if expiry > now then
                add_reader(KEYS[4], ARGV[1], ARGV[2], rest, now)
                if expiry > now + tonumber(ARGV[2]) then
                  prune_readers(KEYS[4], now)
                end
                return {1, tonumber(string.match(rest, '^[^:]*'))}
              end
            end
            if redis.call('EXISTS', KEYS[1]) == 1 then
              return {0, redis.call('PTTL', KEYS[1])}
            end
            local live = prune_readers(KEYS[4], now)
            local used, soonest, plain = 0, -1, false
            if live > 0 then
              local all = redis.call('HGETALL', KEYS[4])
              for i = 1, #all, 2 do
                if string.sub(all[i], 1, 1) ~= '#' then
                  local expiry, rest = reader_entry(all[i + 1])
                  local sep = string.find(rest, ':', 1, true)
                  if sep then
                    used = used + tonumber(string.sub(rest, sep + 1))
                  else
                    plain = true
                  end
                  if soonest < 0 or expiry - now < soonest then
                    soonest = expiry - now
                  end
                end
              end
            end
            if plain then
              return {0, soonest}
            end
            local limit = tonumber(ARGV[5])
            if live > 0 then
              local stored = tonumber(redis.call('HGET', KEYS[4], '#limit') or ARGV[5])
              if stored ~= limit then
                if ARGV[6] ~= '1' then
                  return {2, stored}
                end
                limit = stored
              end
            end
            if used + tonumber(ARGV[4]) > limit then
              return {0, soonest}
            end
            next_token(KEYS[2], ARGV[3])
            -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
            local token = redis.call('GET', KEYS[2])
            add_reader(KEYS[4], ARGV[1], ARGV[2], token .. ':' .. ARGV[4], now)
            redis.call('HSET', KEYS[4], '#limit', limit)
            return {1, tonumber(token)}
            """);

    /**
     * KEYS: readers. ARGV: limit, release channel. Sets a semaphore's stored count if permits are held
     * (with none, the next request's count applies) and tells waiters, which take the stored count, so a
     * raise wakes those that now fit. Returns the number of live holds.
     */
    public static final LuaScript SET_PERMITS = LuaScript.of("set-permits", SHARED + """
            local live = prune_readers(KEYS[1], now_ms())
            if live > 0 then
              redis.call('HSET', KEYS[1], '#limit', ARGV[1])
              redis.call('PUBLISH', ARGV[2], 'released')
            end
            return live
            """);

    /**
     * KEYS: five per part, all in one slot (or on one non-cluster server): lock, fence, cancelled marker
     * of the part's owner, readers, waiting writers. ARGV: lease ms, clock (see {@link #NEXT_TOKEN}),
     * modes (one character per part: {@code X} exclusive, {@code S} shared), then one owner per part.
     * Several parts at once, all or nothing: first every part is checked as {@link #ACQUIRE} (with no
     * marker) or {@link #ACQUIRE_SHARED} would check it, writing nothing, and the first that is not free
     * answers {0, its index (1-based), the blocking hold's PTTL or -1}; then every part is taken as
     * those scripts take it, and the reply is {1, token of part 1, token of part 2, ...}. The same owner
     * asking again (a resent request) keeps its hold and token; a cancelled owner is refused.
     */
    public static final LuaScript ACQUIRE_ALL = LuaScript.of("acquire-all", NEXT_TOKEN + SHARED + """
            local n = #ARGV - 3
            local now = now_ms()
            local function live_share(readers, owner)
              local mine = redis.call('HGET', readers, owner)
              if mine then
                local expiry, token = reader_entry(mine)
                if expiry > now then
                  return token
                end
              end
              return nil
            end
            for i = 1, n do
              local k, owner = (i - 1) * 5, ARGV[i + 3]
              if redis.call('EXISTS', KEYS[k + 3]) == 1 then
                return {0, i, -1}
              end
              local holder = redis.call('GET', KEYS[k + 1])
              if string.sub(ARGV[3], i, i) == 'S' then
                if not live_share(KEYS[k + 4], owner) then
                  if holder then
                    return {0, i, redis.call('PTTL', KEYS[k + 1])}
                  end
                  local writers = live_writers(KEYS[k + 5], now)
                  if writers > 0 then
                    return {0, i, writers}
                  end
                end
              elseif holder ~= owner then
                if holder then
                  return {0, i, redis.call('PTTL', KEYS[k + 1])}
                end
                if redis.call('EXISTS', KEYS[k + 4]) == 1 then
                  return {0, i, redis.call('PTTL', KEYS[k + 4])}
                end
              end
            end
            local reply = {1}
            for i = 1, n do
              local k, owner = (i - 1) * 5, ARGV[i + 3]
              if string.sub(ARGV[3], i, i) == 'S' then
                -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
                local token = live_share(KEYS[k + 4], owner)
                if not token then
                  next_token(KEYS[k + 2], ARGV[2])
                  token = redis.call('GET', KEYS[k + 2])
                end
                add_reader(KEYS[k + 4], owner, ARGV[1], token, now)
                reply[i + 1] = tonumber(token)
              elseif redis.call('GET', KEYS[k + 1]) == owner then
                redis.call('PEXPIRE', KEYS[k + 1], ARGV[1])
                reply[i + 1] = tonumber(redis.call('GET', KEYS[k + 2]) or '0')
              else
                redis.call('SET', KEYS[k + 1], owner, 'PX', ARGV[1])
                reply[i + 1] = next_token(KEYS[k + 2], ARGV[2])
              end
            end
            return reply
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
     * KEYS: lock, fence, waiting writers, hand-off offers. ARGV: owner, release channel, clock.
     * The single-server release: deletes the lock only if the owner still holds it, then hands it
     * straight to a waiting writer whose hand-off offer is still fresh and whose marker still lives (the
     * offer refreshed longest ago first): sets the lock to that waiter with the lease it asked for, bumps
     * the fence counter and publishes {@code "<waiter> <token>"}, so the waiter is granted without
     * asking again. With no such waiter it publishes {@code released}. Stale offers are dropped on the
     * way. Returns 1 if the lock was the owner's, else 0 (and nothing changes).
     */
    public static final LuaScript RELEASE_HANDING = LuaScript.of("release-handing", NEXT_TOKEN + NOW_MS + HAND_OVER + """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return 0
            end
            redis.call('DEL', KEYS[1])
            local offers = redis.call('HGETALL', KEYS[4])
            if #offers > 0 then
              local now = now_ms()
              local chosen, chosen_fresh, chosen_lease
              for i = 1, #offers, 2 do
                local sep = string.find(offers[i + 1], ':', 1, true)
                local fresh = tonumber(string.sub(offers[i + 1], 1, sep - 1))
                if fresh <= now or tonumber(redis.call('HGET', KEYS[3], offers[i]) or '0') <= now then
                  redis.call('HDEL', KEYS[4], offers[i]) -- stale, or the waiter gave up
                elseif chosen == nil or fresh < chosen_fresh then
                  chosen, chosen_fresh, chosen_lease = offers[i], fresh, string.sub(offers[i + 1], sep + 1)
                end
              end
              -- No reader can hold beside the exclusive hold just released: the lock is free for the waiter.
              if chosen ~= nil then
                redis.call('HDEL', KEYS[3], chosen)
                redis.call('HDEL', KEYS[4], chosen)
                hand_over(chosen, chosen_lease, ARGV[3])
                return 1
              end
            end
            redis.call('PUBLISH', ARGV[2], 'released')
            return 1
            """);

    /**
     * KEYS: readers. ARGV: owner, release channel. Removes the owner's share; when it was the last live
     * reader (a writer can go now) or a semaphore's permit hold (a permit waiter may fit now), tells
     * waiters on the channel. Returns 1 if the share was still the
     * owner's (its lease running), else 0.
     */
    public static final LuaScript RELEASE_SHARED = LuaScript.of("release-shared", SHARED + """
            local mine = redis.call('HGET', KEYS[1], ARGV[1])
            if not mine then
              return 0
            end
            local now = now_ms()
            redis.call('HDEL', KEYS[1], ARGV[1])
            local expiry, rest = reader_entry(mine)
            -- the last reader frees the key for a writer; any permit hold frees room for a permit waiter
            if prune_readers(KEYS[1], now) == 0 or string.find(rest, ':', 1, true) then
              redis.call('PUBLISH', ARGV[2], 'released')
            end
            if expiry > now then
              return 1
            end
            return 0
            """);

    /**
     * KEYS: lock, readers, waiting writers, and optionally the hand-off offers. ARGV: owner, release
     * channel. A waiting writer gives up: removes its marker and its hand-off offer, and a lock a
     * release handed to it meanwhile (telling waiters); when no live marker remains and no one holds
     * the lock exclusively, tells waiters (readers the marker held back can go). Returns 1 if the owner
     * had a marker, else 0.
     */
    public static final LuaScript UNMARK = LuaScript.of("unmark", SHARED + """
            if KEYS[4] then
              redis.call('HDEL', KEYS[4], ARGV[1])
              if redis.call('GET', KEYS[1]) == ARGV[1] then
                redis.call('DEL', KEYS[1]) -- handed over as the waiter gave up
                redis.call('PUBLISH', ARGV[2], 'released')
              end
            end
            if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then
              return 0
            end
            if live_writers(KEYS[3], now_ms()) == 0 and redis.call('EXISTS', KEYS[1]) == 0 then
              redis.call('PUBLISH', ARGV[2], 'released')
            end
            return 1
            """);

    /**
     * KEYS: lock, cancelled marker of the owner, readers, waiting writers, and optionally the hand-off
     * offers (the owner's is removed). ARGV: owner, release channel, marker TTL ms, always (1: mark in any case; 0: only if the lock is not the owner's). The clean-up
     * of an attempt whose answer may never have come, or may still come: deletes the lock if the owner
     * holds it, or the owner's share if it holds one (and tells waiters when the lock is free then),
     * removes the owner's writer marker, and leaves the cancelled marker that makes an acquire of that
     * owner arriving later a no-op. Returns 1 if the owner held the lock or a share whose lease still ran, else 0.
     */
    public static final LuaScript CANCEL = LuaScript.of("cancel", SHARED + """
            local ours = redis.call('GET', KEYS[1]) == ARGV[1]
            if ours then
              redis.call('DEL', KEYS[1])
              redis.call('PUBLISH', ARGV[2], 'released')
            else
              local share = redis.call('HGET', KEYS[3], ARGV[1])
              if share then
                -- an expired entry stays in the hash until pruned: it is no longer the owner's hold
                local now = now_ms()
                local expiry, rest = reader_entry(share)
                ours = expiry > now
                redis.call('HDEL', KEYS[3], ARGV[1])
                if prune_readers(KEYS[3], now) == 0 or string.find(rest, ':', 1, true) then
                  redis.call('PUBLISH', ARGV[2], 'released')
                end
              end
            end
            if KEYS[5] then
              redis.call('HDEL', KEYS[5], ARGV[1])
            end
            if redis.call('HDEL', KEYS[4], ARGV[1]) == 1 and live_writers(KEYS[4], now_ms()) == 0
                and not ours and redis.call('EXISTS', KEYS[1]) == 0 then
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
     * KEYS: one key per hold, all in one slot: the lock of an exclusive hold, the readers of a shared
     * one. ARGV: lease ms, modes (one character per key, {@code S} shared, anything else or nothing
     * exclusive), then one owner per key. Extends each exclusive lock still held by its owner, and each
     * share whose lease still runs (re-setting the readers' PTTL to the latest expiry when a share got
     * shorter, as a linger does); returns one 1 (renewed) or 0 (gone) per key, in order.
     */
    public static final LuaScript RENEW = LuaScript.of("renew", SHARED + """
            local result = {}
            local now = nil
            for i, key in ipairs(KEYS) do
              local owner = ARGV[i + 2]
              result[i] = 0
              if string.sub(ARGV[2], i, i) == 'S' then
                local mine = redis.call('HGET', key, owner)
                if mine then
                  now = now or now_ms()
                  local expiry, token = reader_entry(mine)
                  if expiry > now then
                    add_reader(key, owner, ARGV[1], token, now)
                    if expiry > now + tonumber(ARGV[1]) then
                      prune_readers(key, now)
                    end
                    result[i] = 1
                  end
                end
              elseif redis.call('GET', key) == owner then
                redis.call('PEXPIRE', key, ARGV[1])
                result[i] = 1
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

    /**
     * KEYS: lock, fence, readers, queue, waiters (the last two only in fair mode; every key in the
     * lock's slot). ARGV: fair (1 or 0). Reads, and writes nothing (no pruning, no TTL change): returns
     * {@code {mode, waiters, owner, remaining-ms, token, ...}}, one triple per holder. Mode is
     * {@code X} with the exclusive holder (its PTTL, and the fence counter as its token: no grant
     * happens while it holds, so the counter is the token it was granted or, after Redlock's second
     * round, raised to), {@code S} with every live reader (its own expiry minus the server's clock, and
     * the token stored with its share), or {@code F} for a free key. Tokens are the exact decimal
     * strings Redis holds. Waiters: in fair mode the queue entries whose deadline has not passed (dead
     * entries are purged only by the scripts that serve the queue); -1 (unknown) otherwise.
     */
    public static final LuaScript INSPECT = LuaScript.of("inspect", SHARED + """
            local now = now_ms()
            local waiting = -1
            if ARGV[1] == '1' then
              waiting = 0
              for _, waiter in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
                local entry = redis.call('HGET', KEYS[5], waiter)
                if entry and tonumber(string.sub(entry, 1, string.find(entry, ':', 1, true) - 1)) > now then
                  waiting = waiting + 1
                end
              end
            end
            local holder = redis.call('GET', KEYS[1])
            if holder then
              local pttl = redis.call('PTTL', KEYS[1])
              if pttl > 0 then
                return {'X', waiting, holder, pttl, redis.call('GET', KEYS[2]) or ''}
              end
            end
            local result = {'S', waiting}
            local all = redis.call('HGETALL', KEYS[3])
            for i = 1, #all, 2 do
              if string.sub(all[i], 1, 1) ~= '#' then
                local expiry, token = reader_entry(all[i + 1])
                if expiry > now then
                  table.insert(result, all[i])
                  table.insert(result, expiry - now)
                  table.insert(result, string.match(token, '^[^:]*')) -- a permit hold's count follows
                end
              end
            end
            if #result == 2 then
              return {'F', waiting}
            end
            return result
            """);

    /** No keys: one cheap round trip for health checks. */
    public static final LuaScript PING = LuaScript.of("ping", "return 1");
}
