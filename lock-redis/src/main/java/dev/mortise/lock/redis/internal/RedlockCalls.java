package dev.mortise.lock.redis.internal;


import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls Redlock's shared (read) mode sends to one node, on top of that node's
 * {@link LockCommands}: the single-server scripts ({@link Scripts#ACQUIRE_SHARED},
 * {@link Scripts#RELEASE_SHARED}, {@link Scripts#UNMARK}, {@link Scripts#RENEW} with modes) plus two of
 * Redlock's own: the second round of a shared grant ({@link #RAISE_FENCE_SHARED}) and a waiting writer's
 * marker set apart from its attempt ({@link #MARK}). Redlock owners are per attempt, so a writer's marker
 * carries an id of its own that stays the same over all attempts of one wait. Stateless; thread-safe.
 */
public final class RedlockCalls {

    /**
     * KEYS: readers, fence. ARGV: owner, token. The second round of a shared grant: raises the fence
     * counter to at least the token (on every node, held or not), and returns 1 if the owner's share is
     * here and its lease still runs, else 0.
     */
    static final LuaScript RAISE_FENCE_SHARED = LuaScript.of("raise-fence-shared", Scripts.SHARED + """
            local current = tonumber(redis.call('GET', KEYS[2]) or '0')
            if current < tonumber(ARGV[2]) then
              redis.call('SET', KEYS[2], ARGV[2])
            end
            local mine = redis.call('HGET', KEYS[1], ARGV[1])
            if mine and reader_entry(mine) > now_ms() then
              return 1
            end
            return 0
            """);

    /**
     * KEYS: lock, readers, waiting writers. ARGV: marker id, marker TTL ms, wait left ms. Sets (or
     * refreshes) a waiting writer's marker, as the single-server acquire does when it refuses a waiting
     * writer: it lapses at the latest when the wait ends, and otherwise the marker TTL after the exclusive
     * holder's PTTL (after now when only readers or nobody hold here: the waiter refreshes it with each
     * attempt). Returns 1.
     */
    static final LuaScript MARK = LuaScript.of("mark", Scripts.SHARED + """
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
            """);

    private RedlockCalls() {
    }

    private static String millis(Duration duration) {
        return Long.toString(Math.max(1, duration.toMillis()));
    }

    private static String clock(LockCommands node) {
        return node.serverClock() ? "1" : "0";
    }

    /** Replies {1, token} if {@code owner} now holds a share, {0, ms} if busy, {0, -1} if cancelled. */
    public static CompletableFuture<List<Object>> acquireShared(LockCommands node, RedisKeys keys, String owner,
                                                                Duration lease) {
        return node.runner().callAsync(ScriptCall.of(Scripts.ACQUIRE_SHARED, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fence(), keys.cancelled(owner), keys.readers(), keys.writers()), owner,
                millis(lease), clock(node)));
    }

    /** Round two of a shared grant: 1 if the owner's share is still here after the counter was raised. */
    public static CompletableFuture<Long> raiseFenceShared(LockCommands node, RedisKeys keys, String owner,
                                                           long token) {
        return node.runner().callAsync(ScriptCall.of(RAISE_FENCE_SHARED, ScriptReturn.LONG,
                List.of(keys.readers(), keys.fence()), owner, Long.toString(token)));
    }

    /**
     * Owner-checked release of a share on a node whose acquire was answered; retried in the background
     * until confirmed or the horizon of {@code lease} (see {@link LockCommands#releaseAsync}).
     */
    public static CompletableFuture<Long> releaseShared(LockCommands node, RedisKeys keys, String owner,
                                                        Duration lease) {
        return CleanUps.send(node.runner(), ScriptCall.of(Scripts.RELEASE_SHARED, ScriptReturn.LONG,
                List.of(keys.readers()), owner, keys.channel()), deadline(node.horizon(lease)));
    }

    /** Sets or refreshes a waiting writer's marker {@code marker} for at most {@code waitLeft}. */
    public static CompletableFuture<Long> mark(LockCommands node, RedisKeys keys, String marker, Duration waitLeft) {
        return node.runner().callAsync(ScriptCall.of(MARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers()), marker, millis(node.waiterTtl()),
                millis(waitLeft)));
    }

    /**
     * Withdraws a waiting writer's marker; retried in the background until confirmed or the marker
     * has certainly lapsed (see {@link LockCommands#unmark}).
     */
    public static CompletableFuture<Long> unmark(LockCommands node, RedisKeys keys, String marker, Duration lease) {
        return CleanUps.send(node.runner(), ScriptCall.of(Scripts.UNMARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers()), marker, keys.channel()),
                deadline(node.waiterTtl().plus(node.horizon(lease))));
    }

    /**
     * Renews holds of any mode on one node: per hold, the lock key (exclusive) or the readers key
     * (shared), its owner, and {@code modes} with one {@code S} or {@code X} per hold. Replies one flag
     * (1 renewed, 0 gone) per hold.
     */
    public static CompletableFuture<List<Object>> renew(LockCommands node, List<String> holdKeys, List<String> owners,
                                                        String modes, Duration lease) {
        Object[] args = new Object[owners.size() + 2];
        args[0] = millis(lease);
        args[1] = modes;
        for (int i = 0; i < owners.size(); i++) {
            args[i + 2] = owners.get(i);
        }
        return node.runner().callAsync(ScriptCall.of(Scripts.RENEW, ScriptReturn.LIST,
                new ArrayList<>(holdKeys), args));
    }

    private static long deadline(Duration span) {
        return System.nanoTime() + span.toNanos();
    }
}
