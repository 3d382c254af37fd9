-- renew: renewal of holds of one slot (HoldCommands.RENEW).
-- KEYS: one key per hold, all in one slot: the lock of an exclusive hold, the readers of a shared
-- one. ARGV: lease ms, modes (one character per key, S shared, anything else or nothing exclusive),
-- then one owner per key. Extends each exclusive lock still held by its owner, and each share whose
-- lease still runs (re-setting the readers' PTTL to the latest expiry when a share got shorter, as a
-- linger does); returns one 1 (renewed) or 0 (gone) per key, in order.
local result = {}
local now = nil
for i, key in ipairs(KEYS) do
  local owner = ARGV[i + 2]
  result[i] = 0
  if string.sub(ARGV[2], i, i) == 'S' then
    local mine = redis.call('HGET', key, owner)
    if mine then
      now = now or now_ms()
      local expiry, token = reader_entry(mine)
      if expiry > now then
        add_reader(key, owner, ARGV[1], token, now)
        if expiry > now + tonumber(ARGV[1]) then
          prune_readers(key, now)
        end
        result[i] = 1
      end
    end
  elseif redis.call('GET', key) == owner then
    redis.call('PEXPIRE', key, ARGV[1])
    result[i] = 1
  end
end
return result
