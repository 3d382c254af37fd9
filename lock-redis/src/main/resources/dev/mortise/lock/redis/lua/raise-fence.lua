-- raise-fence: Redlock's second round (ExclusiveCommands.RAISE_FENCE).
-- KEYS: lock, fence. ARGV: owner, token. Raises the fence counter to at least the token (on every
-- node, held or not, so that more nodes carry it), and returns 1 if the owner still holds the lock
-- here, else 0.
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if current < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return 1
end
return 0
