-- release-handing: the single-server release that hands over (ExclusiveCommands.RELEASE_HANDING).
-- KEYS: lock, fence, waiting writers, hand-off offers. ARGV: owner, release channel, clock. Deletes
-- the lock only if the owner still holds it, then hands it straight to a waiting writer whose
-- hand-off offer is still fresh and whose marker still lives (the offer refreshed longest ago
-- first): sets the lock to that waiter with the lease it asked for, bumps the fence counter and
-- publishes "<waiter> <token>", so the waiter is granted without asking again. With no such waiter
-- it publishes 'released'. Stale offers are dropped on the way. Returns 1 if the lock was the
-- owner's, else 0 (and nothing changes).
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
