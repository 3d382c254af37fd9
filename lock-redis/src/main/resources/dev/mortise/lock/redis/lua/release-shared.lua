-- release-shared: the release of a share (SharedCommands.RELEASE_SHARED).
-- KEYS: readers. ARGV: owner, release channel. Removes the owner's share; when it was the last live
-- reader (a writer can go now) or a semaphore's permit hold (a permit waiter may fit now), tells
-- waiters on the channel. Returns 1 if the share was still the owner's (its lease running), else 0.
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
