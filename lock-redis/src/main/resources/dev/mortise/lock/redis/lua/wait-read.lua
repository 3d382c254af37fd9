-- wait-read: reads wait records (WaitRecordCommands); writes nothing.
-- KEYS: the records' names, all in one slot. No ARGV. Returns one entry per key: its value
-- '<nonce>:<text>', or '' where there is none (never written, removed or expired). A stored value
-- always has its colon, so '' is never a record.
local found = {}
for i = 1, #KEYS do
  found[i] = redis.call('GET', KEYS[i]) or ''
end
return found
