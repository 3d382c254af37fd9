-- release: the owner-checked release of an exclusive hold (ExclusiveCommands.RELEASE).
-- KEYS: lock. ARGV: owner, release channel. Deletes the lock only if the owner still holds it, and
-- tells waiters on the channel. Returns 1 if it was the owner's, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], 'released')
  return 1
end
return 0
