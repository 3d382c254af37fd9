-- wait-publish: writes one wait record of deadlock detection under several holder ids (WaitRecordCommands).
-- KEYS: the records' names, <prefix>:waits:{<holder id>}, all in one slot. ARGV: nonce, text, TTL in ms.
-- Each key becomes the string '<nonce>:<text>' with the TTL (replacing what was there; the server
-- expires it). Returns the number of keys written.
local value = ARGV[1] .. ':' .. ARGV[2]
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], value, 'PX', ARGV[3])
end
return #KEYS
