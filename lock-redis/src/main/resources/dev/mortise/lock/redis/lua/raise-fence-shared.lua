-- raise-fence-shared: the second round of a Redlock shared grant (RedlockCalls.RAISE_FENCE_SHARED).
-- KEYS: readers, fence. ARGV: owner, token. Raises the fence counter to at least the token (on every
-- node, held or not), and returns 1 if the owner's share is here and its lease still runs, else 0.
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if current < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
local mine = redis.call('HGET', KEYS[1], ARGV[1])
if mine and reader_entry(mine) > now_ms() then
  return 1
end
return 0
