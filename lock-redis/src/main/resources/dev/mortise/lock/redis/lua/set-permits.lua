-- set-permits: a semaphore's stored count (SharedCommands.SET_PERMITS).
-- KEYS: readers. ARGV: limit, release channel. Sets the stored count if permits are held (with none,
-- the next request's count applies) and tells waiters, which take the stored count, so a raise wakes
-- those that now fit. Returns the number of live holds.
local live = prune_readers(KEYS[1], now_ms())
if live > 0 then
  redis.call('HSET', KEYS[1], '#limit', ARGV[1])
  redis.call('PUBLISH', ARGV[2], 'released')
end
return live
