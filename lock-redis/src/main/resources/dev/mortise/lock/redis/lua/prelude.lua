-- prelude: the helpers every script that calls one is sent with, ahead of its own text (LuaFiles).
-- Each script runs atomically on the node that owns the lock's slot; every key a script touches
-- shares one hash tag, so Redis Cluster accepts it. Lock keys hold the exclusive owner id and carry
-- the lease as their TTL; readers keys hold the shared owners; fence keys are plain counters with no
-- TTL, so a token survives release and expiry, and every grant, shared or exclusive, takes its token
-- from the one counter. A helper is a local function: defining one a script does not call costs
-- nothing but its closure.
--
-- next_token(fence, clock) bumps the fence counter for a new holder and returns the token. With
-- clock == '1' the token is max(counter + 1, TIME in us) (server-clock tokens): a server that lost
-- the counter (restart without persistence, failover that lost unreplicated writes) continues above
-- every token it issued, unless its clock stepped back across the loss by more than the loss took.
-- With '0' it is counter + 1. The time goes into the key as an exact decimal string, built from
-- TIME's two fields, never through a Lua number (which would print as 1.8e+15); the number compared
-- and returned stays below 2^53, so it is exact. TIME in a script that then writes needs effects
-- replication: the default from Redis 5, the only mode from Redis 7.
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
-- now_ms() is the server's clock in ms.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Shared (read) holds. A key's readers are a hash owner -> "<expiry-ms>:<token>" (expiry by the
-- server's clock; the token as the exact decimal string the fence counter held); a hash field has no
-- TTL of its own, so the hash's PTTL is kept at the latest expiry: the hash exists exactly while some
-- reader's lease runs, and an exclusive request needs only EXISTS. prune_readers drops expired
-- readers, resets the PTTL to the latest expiry (or deletes the hash) and returns how many readers
-- are live. A semaphore's key (permit holds, see acquire-permits.lua) keeps its readers as
-- "<expiry-ms>:<token>:<count>" and its permit count in the field '#limit', which prune_readers
-- skips (and deletes with the hash when no reader is live). Waiting writers (non-fair mode) are a
-- hash owner -> deadline-ms, kept the same way: live_writers drops lapsed markers and returns the ms
-- until the last live one lapses (0: none).
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
-- The same owner asking again: a resend of the very request that took the hold (owners are unique
-- per hold), answered as that request's grant (docs/DESIGN.md, point 4): the lease is re-applied in
-- the same step, and the token is the one the hold was granted, which cannot move while the hold
-- lives. keep_lock(lock, fence, lease) does it for an exclusive hold the caller found the owner's,
-- and returns the token (the counter: no grant happens while the lock is held). keep_share(readers,
-- owner, lease, now) does it for the owner's share or permit hold if its lease still runs (the entry
-- keeps its token and count; the readers' PTTL is reset when the hold got shorter), and returns the
-- token; nil when the owner holds none. keep_lock serves acquire.lua, acquire-all.lua and
-- fair-acquire.lua, keep_share acquire-shared.lua and acquire-permits.lua: each of them spelled the
-- branch out with these commands in this order, so a script runs the same commands through them.
-- The share branches of acquire-all.lua and fair-acquire.lua (no PTTL reset) and renew.lua's (which
-- reads the clock only for a share it finds) are not the same and stay in those scripts.
local function keep_lock(lock, fence, lease)
  redis.call('PEXPIRE', lock, lease)
  return tonumber(redis.call('GET', fence) or '0')
end
local function keep_share(readers, owner, lease, now)
  local mine = redis.call('HGET', readers, owner)
  if mine then
    local expiry, rest = reader_entry(mine)
    if expiry > now then
      add_reader(readers, owner, lease, rest, now)
      if expiry > now + tonumber(lease) then
        prune_readers(readers, now)
      end
      return tonumber(string.match(rest, '^[^:]*')) -- a permit hold's count follows its token
    end
  end
  return nil
end
-- hand_over(waiter, lease, clock) gives the free lock (KEYS[1]) to a waiter inside a release: sets it
-- to the waiter with the waiter's lease, bumps the fence counter (KEYS[2]) and publishes
-- "<waiter> <token>" on the release channel (ARGV[2]). The caller removes the waiter's own entries.
-- Used by release-handing.lua and fair mode.
local function hand_over(waiter, lease, clock)
  redis.call('SET', KEYS[1], waiter, 'PX', lease)
  next_token(KEYS[2], clock)
  -- The stored decimal string, not the Lua number: '..' would print 1.8e15 as 1.7954896e+15.
  redis.call('PUBLISH', ARGV[2], waiter .. ' ' .. redis.call('GET', KEYS[2]))
end
