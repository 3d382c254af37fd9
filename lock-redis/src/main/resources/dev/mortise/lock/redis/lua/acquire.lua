-- acquire: the exclusive acquire (ExclusiveCommands.ACQUIRE).
-- KEYS: lock, fence, cancelled marker of the owner, readers, waiting writers, and optionally the
-- hand-off offers. ARGV: owner, lease ms, clock (1: server-clock tokens, 0: counter; see next_token),
-- marker TTL ms (0: leave no marker), wait left ms, and optionally the hand-off window ms (absent or
-- 0: offer none). Takes the lock if it is free (no exclusive holder and no live reader) or already
-- the owner's, and returns {1, token}; otherwise {0, holder's PTTL, 0, fence counter}, and
-- {0, readers' PTTL, 1, fence counter} when readers hold it (the counter tells a waiter whether a
-- hand-off it hears of later came after this refusal). A new holder bumps the fence counter; the
-- same owner asking again (a retried request) keeps its token and has its lease re-applied. A
-- waiting request (marker TTL above 0) that is refused leaves its "writer waiting" marker, which
-- refuses new readers until it lapses: for at most the wait left, and the marker TTL after the
-- blocking hold's PTTL (after now when readers block, so the waiter refreshes it); a grant removes
-- it. With a hand-off window, a marking request also offers to take the lock straight from the
-- holder's release (release-handing.lua): the offer, owner -> "<fresh-until-ms>:<lease-ms>", is
-- fresh for the window and a grant removes it. An owner whose attempt was given up (cancel.lua) is
-- refused with {0, -1} and nothing is written: the attempt arrived after its own clean-up.
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
  return {1, keep_lock(KEYS[1], KEYS[2], ARGV[2])}
end
local pttl = redis.call('PTTL', KEYS[1])
if ARGV[4] ~= '0' then
  mark(math.max(pttl, 0))
end
return {0, pttl, 0, tonumber(redis.call('GET', KEYS[2]) or '0')}
