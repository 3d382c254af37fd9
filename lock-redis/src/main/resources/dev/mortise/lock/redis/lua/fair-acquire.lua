-- fair-acquire: the acquire of fair mode (FairCommands.ACQUIRE), after prelude.lua and fair-queue.lua.
-- KEYS: lock, fence, queue, waiters, cancelled marker of the owner, readers. ARGV: owner, lease ms,
-- enqueue (0/1), waiter TTL ms, clock (1: server-clock tokens, 0: counter; see next_token), mode
-- (S shared, X exclusive). Granted {1, token} if the lock (or a share) is ours already (handed over,
-- or a retried request: its lease re-applied, its token unchanged), or an exclusive request finds the
-- lock free, no reader holding, and is first in line (or no one waits), or a shared request finds no
-- exclusive holder and no live writer queued before it. Otherwise {0, ms, 0, fence counter} (the
-- counter tells a waiter whether a hand-off it hears of later came after this refusal), ms being the
-- holder's PTTL (the readers' when they hold), or, when the lock is free but another waiter comes
-- first, the time until that waiter's entry lapses; with enqueue, joins the queue (or refreshes our
-- entry). A cancelled owner (see fair-release.lua, mode 2) is refused with {0, -1}: nothing is taken
-- or queued.
if redis.call('EXISTS', KEYS[5]) == 1 then
  return {0, -1}
end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  return {1, keep_lock(KEYS[1], KEYS[2], ARGV[2])}
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
