-- acquire-permits: a semaphore's permit hold (SharedCommands.ACQUIRE_PERMITS).
-- KEYS: lock, fence, cancelled marker of the owner, readers. ARGV: owner, lease ms, clock, count,
-- limit, follow (1: a request already waiting, which takes the stored limit; 0: a new one, which
-- must match it). A permit hold is a share of the readers hash, stored as
-- "<expiry>:<token>:<count>", granted when no one holds the lock exclusively, every live reader is a
-- permit hold, and their counts plus this count fit under the limit kept in the hash's '#limit'
-- field (the request's own when no permit is held). Replies {1, token} granted (the same owner asking
-- again keeps its token and has its lease re-applied), {0, ms until the soonest holder's lease ends
-- (or -1)} busy, {2, stored limit} when a new request's limit differs from the stored one while
-- permits are held (nothing written). A cancelled owner is refused with {0, -1}.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {0, -1}
end
local now = now_ms()
local kept = keep_share(KEYS[4], ARGV[1], ARGV[2], now)
if kept then
  return {1, kept}
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
