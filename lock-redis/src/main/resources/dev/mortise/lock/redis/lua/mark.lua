-- mark: a Redlock waiting writer's marker, set apart from its attempt (RedlockCalls.MARK).
-- KEYS: lock, readers, waiting writers. ARGV: marker id, marker TTL ms, wait left ms. Sets (or
-- refreshes) a waiting writer's marker, as acquire.lua does when it refuses a waiting writer: it
-- lapses at the latest when the wait ends, and otherwise the marker TTL after the exclusive holder's
-- PTTL (after now when only readers or nobody hold here: the waiter refreshes it with each attempt).
-- Returns 1.
local after = redis.call('PTTL', KEYS[1])
if after < 0 then
  after = 0
end
local ttl = math.min(tonumber(ARGV[3]), after + tonumber(ARGV[2]))
redis.call('HSET', KEYS[3], ARGV[1], now_ms() + ttl)
if redis.call('PTTL', KEYS[3]) < ttl then
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return 1
