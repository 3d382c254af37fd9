-- wait-remove: the compare-and-delete of wait records (WaitRecordCommands).
-- KEYS: the records' names, all in one slot. ARGV: nonce. Deletes each record that still bears the
-- nonce (its value starts with '<nonce>:'), leaving newer records alone. Returns how many it deleted.
local mine = ARGV[1] .. ':'
local removed = 0
for i = 1, #KEYS do
  local value = redis.call('GET', KEYS[i])
  if value and string.sub(value, 1, #mine) == mine then
    redis.call('DEL', KEYS[i])
    removed = removed + 1
  end
end
return removed
