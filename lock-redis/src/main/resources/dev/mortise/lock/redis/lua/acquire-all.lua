-- acquire-all: several parts at once, all or nothing (BatchAcquire.ACQUIRE_ALL).
-- KEYS: five per part, all in one slot (or on one non-cluster server): lock, fence, cancelled marker
-- of the part's owner, readers, waiting writers. ARGV: lease ms, clock (see next_token), modes (one
-- character per part: X exclusive, S shared), then one owner per part. First every part is checked
-- as acquire.lua (with no marker) or acquire-shared.lua would check it, writing nothing, and the
-- first that is not free answers {0, its index (1-based), the blocking hold's PTTL or -1}; then every
-- part is taken as those scripts take it, and the reply is {1, token of part 1, token of part 2, ...}.
-- The same owner asking again (a resent request) keeps its hold and token, its lease re-applied; a
-- cancelled owner is refused.
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
    reply[i + 1] = keep_lock(KEYS[k + 1], KEYS[k + 2], ARGV[1])
  else
    redis.call('SET', KEYS[k + 1], owner, 'PX', ARGV[1])
    reply[i + 1] = next_token(KEYS[k + 2], ARGV[2])
  end
end
return reply
