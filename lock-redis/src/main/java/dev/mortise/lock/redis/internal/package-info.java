/**
 * The lock operations on one Redis deployment: <b>internal</b>, no compatibility promise.
 *
 * <ul>
 *   <li>Scripts: each is a Lua file under {@code dev/mortise/lock/redis/lua/} ({@link
 *       dev.mortise.lock.redis.internal.LuaFiles}), sent after the shared {@code prelude.lua} when it
 *       calls a helper, by SHA-1 first ({@link dev.mortise.lock.redis.internal.LuaScript}).</li>
 *   <li>Command families, composed per deployment by {@link dev.mortise.lock.redis.internal.LockCommands}:
 *       {@link dev.mortise.lock.redis.internal.ExclusiveCommands},
 *       {@link dev.mortise.lock.redis.internal.SharedCommands} (shares and permits),
 *       {@link dev.mortise.lock.redis.internal.FairCommands} (the server-side queue),
 *       {@link dev.mortise.lock.redis.internal.BatchAcquire} (all or nothing),
 *       {@link dev.mortise.lock.redis.internal.HoldCommands} (renewal, release, clean-up) and
 *       {@link dev.mortise.lock.redis.internal.Inspection}; one attempt from request to answer is
 *       {@link dev.mortise.lock.redis.internal.Attempts}'.</li>
 *   <li>Deadlock detection's wait records: {@link dev.mortise.lock.redis.internal.WaitRecordCommands}
 *       (the script calls, per deployment, also Redlock's per node) and
 *       {@link dev.mortise.lock.redis.internal.RedisWaitRecords} (the Redis backend's
 *       {@code WaitRecords}).</li>
 *   <li>Waiting: {@link dev.mortise.lock.redis.internal.WaitingAcquisition}, one object per waiting
 *       acquisition, written as {@code WaitSteps} (run blocking by {@code acquire}, without a thread
 *       between steps by {@code acquireAsync}), over the release channels ({@link dev.mortise.lock.redis.internal.ReleaseChannels},
 *       {@link dev.mortise.lock.redis.internal.ReleaseWaiter}).</li>
 *   <li>Below the commands: {@link dev.mortise.lock.redis.internal.ScriptRunner} (timeouts, {@code NOSCRIPT},
 *       messages) over the {@link dev.mortise.lock.redis.internal.RedisTransport} seam, which the driver
 *       packages {@code internal.redisson} and {@code internal.lettuce} implement; key names
 *       ({@link dev.mortise.lock.redis.internal.RedisKeys}); how a release that may have reached a
 *       server twice is read ({@link dev.mortise.lock.redis.internal.MaybeResent}, also Redlock's).</li>
 * </ul>
 *
 * <p>This package depends on neither client library; the driver packages and {@code internal.redlock}
 * depend on it, never the other way.
 */
package dev.mortise.lock.redis.internal;
