-- unmark: a waiting writer gives up (ExclusiveCommands.UNMARK; Redlock's RedlockCalls.unmark).
-- KEYS: lock, readers, waiting writers, and optionally the hand-off offers. ARGV: owner, release
-- channel. Removes its marker and its hand-off offer, and a lock a release handed to it meanwhile
-- (telling waiters); when no live marker remains and no one holds the lock exclusively, tells
-- waiters (readers the marker held back can go). Returns 1 if the owner had a marker, else 0.
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
