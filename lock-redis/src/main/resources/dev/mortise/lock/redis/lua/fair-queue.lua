-- fair-queue: the queue helpers of fair mode, after prelude.lua, before fair-acquire.lua and
-- fair-release.lua. Waiters queue on the server and release hands the lock straight to the first
-- live waiter inside the release script. Keys, all under the lock's hash tag: the lock (KEYS[1]), the
-- fence counter (KEYS[2]), the queue (KEYS[3], a sorted set of owners by arrival, server time in
-- microseconds), the waiters (KEYS[4], a hash owner -> "deadline-ms:lease-ms", with ":S" appended for
-- a shared request), the owner's cancelled marker (KEYS[5]) and the readers (KEYS[6]). A waiter's
-- entry lives until its deadline, which it refreshes on every retry; a dead waiter's entry is purged
-- when it reaches the head after its deadline (or when a reader looks past it), and both keys expire
-- with the last heartbeat. Readers and writers queue in one order: a shared request goes ahead of
-- the queued readers but never of a live queued writer; when the lock comes free, the consecutive
-- readers at the head are handed their shares together, or the writer at the head the lock.
--
-- head(now) drops dead entries at the head and returns the first live waiter, its lease, deadline
-- and mode ('S' or 'X'), or nil. writer_ahead(now, owner) returns the ms until the first live
-- exclusive waiter queued before owner (before everyone if not queued) lapses, or nil, dropping dead
-- entries it passes. serve(now, readers_only) hands the free lock on: the leading readers their
-- shares, else (unless readers_only) the writer at the head the lock if no reader holds, publishing
-- "<owner> <token>" per grant; it returns how many it served.
local function entry_of(entry)
  local sep = string.find(entry, ':', 1, true)
  local rest = string.sub(entry, sep + 1)
  local mode = 'X'
  local sep2 = string.find(rest, ':', 1, true)
  if sep2 then
    mode = string.sub(rest, sep2 + 1)
    rest = string.sub(rest, 1, sep2 - 1)
  end
  return tonumber(string.sub(entry, 1, sep - 1)), tonumber(rest), mode
end
local function head(now)
  while true do
    local first = redis.call('ZRANGE', KEYS[3], 0, 0)
    if #first == 0 then
      return nil, nil
    end
    local entry = redis.call('HGET', KEYS[4], first[1])
    if entry then
      local deadline, lease, mode = entry_of(entry)
      if deadline > now then
        return first[1], lease, deadline, mode
      end
    end
    redis.call('ZREM', KEYS[3], first[1])
    redis.call('HDEL', KEYS[4], first[1])
  end
end
local function writer_ahead(now, owner)
  for _, waiter in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if waiter == owner then
      return nil
    end
    local entry = redis.call('HGET', KEYS[4], waiter)
    local deadline, lease, mode = 0, 0, 'X'
    if entry then
      deadline, lease, mode = entry_of(entry)
    end
    if deadline <= now then
      redis.call('ZREM', KEYS[3], waiter)
      redis.call('HDEL', KEYS[4], waiter)
    elseif mode ~= 'S' then
      return deadline - now
    end
  end
  return nil
end
local function serve(now, readers_only)
  local served = 0
  while true do
    local first, lease, deadline, mode = head(now)
    if first == nil then
      return served
    end
    if mode ~= 'S' then
      if served == 0 and not readers_only and redis.call('EXISTS', KEYS[6]) == 0 then
        redis.call('ZREM', KEYS[3], first)
        redis.call('HDEL', KEYS[4], first)
        hand_over(first, lease, ARGV[5])
        served = 1
      end
      return served
    end
    redis.call('ZREM', KEYS[3], first)
    redis.call('HDEL', KEYS[4], first)
    next_token(KEYS[2], ARGV[5])
    local token = redis.call('GET', KEYS[2])
    add_reader(KEYS[6], first, lease, token, now)
    redis.call('PUBLISH', ARGV[2], first .. ' ' .. token)
    served = served + 1
  end
end
