-- fair-release: release, leave and cancel of fair mode (FairCommands.RELEASE), after prelude.lua and
-- fair-queue.lua. KEYS: lock, fence, queue, waiters, cancelled marker of the owner, readers. ARGV:
-- owner, channel, mode (0 release, 1 leave, 2 cancel), marker TTL ms (mode 2), clock (as in
-- fair-acquire.lua). Leave and cancel first remove the owner from the queue (a waiter giving up);
-- cancel also sets the owner's marker, so an acquire of that owner still on its way is refused when
-- it arrives. Then, if the owner holds the lock, deletes it, or if it holds a share, removes that;
-- once the lock is free and no reader holds, hands it on (serve: the leading readers together, or
-- the first live writer), or publishes 'released' when no one waits. A waiter leaving the queue
-- while the lock is not held exclusively lets the readers queued behind it go. Returns 1 if the
-- owner held the lock or a live share, else 0.
local left = false
if ARGV[3] ~= '0' then
  left = redis.call('ZREM', KEYS[3], ARGV[1]) == 1
  redis.call('HDEL', KEYS[4], ARGV[1])
end
if ARGV[3] == '2' then
  redis.call('SET', KEYS[5], '1', 'PX', ARGV[4])
end
local held = 0
local now = now_ms()
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  held = 1
else
  local mine = redis.call('HGET', KEYS[6], ARGV[1])
  if mine == false then
    if left and redis.call('EXISTS', KEYS[1]) == 0 then
      serve(now, true)
    end
    return 0
  end
  redis.call('HDEL', KEYS[6], ARGV[1])
  if reader_entry(mine) > now then
    held = 1
  end
  if prune_readers(KEYS[6], now) > 0 then
    return held
  end
end
if serve(now, false) == 0 then
  redis.call('PUBLISH', ARGV[2], 'released')
end
return held
