-- acquire-shared: the shared acquire (SharedCommands.ACQUIRE_SHARED).
-- KEYS: lock, fence, cancelled marker of the owner, readers, waiting writers. ARGV: owner, lease ms,
-- clock. Joins the readers if no one holds the lock exclusively and no writer's marker is live,
-- bumping the fence counter, and returns {1, token}; the same owner asking again keeps its token and
-- has its lease re-applied. Otherwise {0, ms}: the exclusive holder's PTTL, or the time until the
-- last writer's marker lapses. A cancelled owner is refused with {0, -1} and nothing is written.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {0, -1}
end
local now = now_ms()
-- A share's entry holds only '<expiry>:<token>', so keep_share answers tonumber(token).
local kept = keep_share(KEYS[4], ARGV[1], ARGV[2], now)
if kept then
  return {1, kept}
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
