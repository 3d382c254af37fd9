-- inspect: what the server keeps for a key (Inspection.INSPECT).
-- KEYS: lock, fence, readers, queue, waiters (the last two only in fair mode; every key in the lock's
-- slot). ARGV: fair (1 or 0). Reads, and writes nothing (no pruning, no TTL change): returns
-- {mode, waiters, owner, remaining-ms, token, ...}, one triple per holder. Mode is X with the
-- exclusive holder (its PTTL, and the fence counter as its token: no grant happens while it holds,
-- so the counter is the token it was granted or, after Redlock's second round, raised to), S with
-- every live reader (its own expiry minus the server's clock, and the token stored with its share),
-- or F for a free key. Tokens are the exact decimal strings Redis holds. Waiters: in fair mode the
-- queue entries whose deadline has not passed (dead entries are purged only by the scripts that
-- serve the queue); -1 (unknown) otherwise.
local now = now_ms()
local waiting = -1
if ARGV[1] == '1' then
  waiting = 0
  for _, waiter in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    local entry = redis.call('HGET', KEYS[5], waiter)
    if entry and tonumber(string.sub(entry, 1, string.find(entry, ':', 1, true) - 1)) > now then
      waiting = waiting + 1
    end
  end
end
local holder = redis.call('GET', KEYS[1])
if holder then
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl > 0 then
    return {'X', waiting, holder, pttl, redis.call('GET', KEYS[2]) or ''}
  end
end
local result = {'S', waiting}
local all = redis.call('HGETALL', KEYS[3])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 1) ~= '#' then
    local expiry, token = reader_entry(all[i + 1])
    if expiry > now then
      table.insert(result, all[i])
      table.insert(result, expiry - now)
      table.insert(result, string.match(token, '^[^:]*')) -- a permit hold's count follows
    end
  end
end
if #result == 2 then
  return {'F', waiting}
end
return result
