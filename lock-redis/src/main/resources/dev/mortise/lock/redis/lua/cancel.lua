-- cancel: the clean-up of an attempt whose answer may never have come, or may still come
-- (HoldCommands.CANCEL). KEYS: lock, cancelled marker of the owner, readers, waiting writers, and
-- optionally the hand-off offers (the owner's is removed). ARGV: owner, release channel, marker TTL
-- ms, always (1: mark in any case; 0: only if the lock is not the owner's). Deletes the lock if the
-- owner holds it, or the owner's share if it holds one (and tells waiters when the lock is free
-- then), removes the owner's writer marker, and leaves the cancelled marker that makes an acquire of
-- that owner arriving later a no-op. Returns 1 if the owner held the lock or a share whose lease
-- still ran, else 0.
local ours = redis.call('GET', KEYS[1]) == ARGV[1]
if ours then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], 'released')
else
  local share = redis.call('HGET', KEYS[3], ARGV[1])
  if share then
    -- an expired entry stays in the hash until pruned: it is no longer the owner's hold
    local now = now_ms()
    local expiry, rest = reader_entry(share)
    ours = expiry > now
    redis.call('HDEL', KEYS[3], ARGV[1])
    if prune_readers(KEYS[3], now) == 0 or string.find(rest, ':', 1, true) then
      redis.call('PUBLISH', ARGV[2], 'released')
    end
  end
end
if KEYS[5] then
  redis.call('HDEL', KEYS[5], ARGV[1])
end
if redis.call('HDEL', KEYS[4], ARGV[1]) == 1 and live_writers(KEYS[4], now_ms()) == 0
    and not ours and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('PUBLISH', ARGV[2], 'released')
end
if ARGV[4] == '1' or not ours then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
end
if ours then
  return 1
end
return 0
