package dev.mortise.lock.fencing.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.fencing.FenceCheckException;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Fenced Redis writes over an application's {@link RedissonClient} (single server, sentinel
 * or Cluster): a write carrying a token lower than the highest one already seen for the key
 * is refused, atomically, by a Lua script ({@link RedisFenceScripts}), with
 * {@link StaleFencingTokenException}.
 *
 * <pre>{@code
 * RedissonFencedWrites writes = RedissonFencedWrites.of(redisson);
 * try (LockLease lease = locks.acquire("report:7", Duration.ofSeconds(5))) {
 *     writes.set("report:7", lease, render());
 * }
 * }</pre>
 *
 * <p>The fence is per data key, kept in its {@linkplain RedisFenceScripts#fenceKey fence key}
 * in the same Cluster slot. Values and fields are strings (UTF-8). Only writes made through
 * these scripts are fenced. The fence lives in Redis, so it is as durable as Redis: a failover
 * that loses the fence key's last write can let a stale token through once. Thread-safe.
 */
public final class RedissonFencedWrites {

    private static final String GUARD = "redis-fence";

    private final RScript script;
    private final Consumer<StaleFencingTokenException> onRejected;

    private RedissonFencedWrites(RedissonClient redisson, Consumer<StaleFencingTokenException> onRejected) {
        this.script = Objects.requireNonNull(redisson, "redisson").getScript(StringCodec.INSTANCE);
        this.onRejected = Objects.requireNonNull(onRejected, "onRejected");
    }

    /** Fenced writes over {@code redisson}. The client stays the caller's to close. */
    public static RedissonFencedWrites of(RedissonClient redisson) {
        return new RedissonFencedWrites(redisson, stale -> { });
    }

    /** As {@link #of}, calling {@code onRejected} (for metrics) with each refusal before it is thrown. */
    public static RedissonFencedWrites of(RedissonClient redisson, Consumer<StaleFencingTokenException> onRejected) {
        return new RedissonFencedWrites(redisson, onRejected);
    }

    /** {@code SET key value} unless a newer holder has written {@code key}. */
    public void set(String key, LockLease lease, String value) {
        set(key, token(key, lease), value, Duration.ZERO);
    }

    /**
     * {@code SET key value [PX ttl]} unless a token higher than {@code token} has written
     * {@code key}. A zero {@code ttl} means none; the fence key never expires.
     *
     * @throws StaleFencingTokenException if a higher token has written {@code key} (nothing was written)
     * @throws FenceCheckException        if Redis failed (the write may or may not have happened)
     */
    public void set(String key, long token, String value, Duration ttl) {
        String fence = RedisFenceScripts.fenceKey(key);
        check(key, token);
        if (value == null) {
            throw new IllegalArgumentException("Fenced SET of Redis key '" + key + "' with a null value (" + GUARD
                    + "): pass a value, or delete the key yourself.");
        }
        if (ttl == null || ttl.isNegative()) {
            throw new IllegalArgumentException("Fenced SET of Redis key '" + key + "': ttl must be zero (none) or "
                    + "positive, was " + ttl + " (" + GUARD + ").");
        }
        long millis = ttl.isZero() ? 0 : Math.max(1, ttl.toMillis());
        run(RedisFenceScripts.SET, key, fence, token, value, Long.toString(millis));
    }

    /** {@code HSET key field value} unless a newer holder has written {@code key}. */
    public void hset(String key, LockLease lease, String field, String value) {
        hset(key, token(key, lease), Map.of(field, value));
    }

    /**
     * {@code HSET key f1 v1 f2 v2 …} for every entry of {@code fields}, unless a token higher
     * than {@code token} has written {@code key}.
     *
     * @throws StaleFencingTokenException if a higher token has written {@code key} (nothing was written)
     * @throws FenceCheckException        if Redis failed (the write may or may not have happened)
     */
    public void hset(String key, long token, Map<String, String> fields) {
        String fence = RedisFenceScripts.fenceKey(key);
        check(key, token);
        if (fields == null || fields.isEmpty()) {
            throw new IllegalArgumentException("Fenced HSET of Redis key '" + key + "' with no fields (" + GUARD
                    + "): pass at least one field and value.");
        }
        List<Object> args = new ArrayList<>(fields.size() * 2);
        fields.forEach((field, value) -> {
            args.add(Objects.requireNonNull(field, "field"));
            args.add(Objects.requireNonNull(value, () -> "value of field " + field));
        });
        run(RedisFenceScripts.HSET, key, fence, token, args.toArray());
    }

    /** The highest token that has written {@code key} through these scripts, or -1 if none. */
    public long fence(String key) {
        Object seen = script.eval(key, RScript.Mode.READ_ONLY, "return redis.call('GET', KEYS[1])",
                RScript.ReturnType.VALUE, List.of(RedisFenceScripts.fenceKey(key)));
        return seen == null ? -1 : Long.parseLong(seen.toString());
    }

    private void run(String lua, String key, String fence, long token, Object... rest) {
        Object[] args = new Object[rest.length + 1];
        args[0] = Long.toString(token);
        System.arraycopy(rest, 0, args, 1, rest.length);
        Object answer;
        try {
            answer = script.eval(key, RScript.Mode.READ_WRITE, lua, RScript.ReturnType.VALUE,
                    List.of(key, fence), args);
        } catch (RuntimeException e) {
            throw new FenceCheckException("Fenced write of Redis key '" + key + "' with token " + token + " failed ("
                    + GUARD + "): " + e.getMessage() + ". Whether it was applied is unknown; read the key, or "
                    + "write again with the same lease (an equal token is accepted).", key, GUARD, e);
        }
        if (answer != null) {
            long newer = Long.parseLong(answer.toString());
            StaleFencingTokenException stale = new StaleFencingTokenException(
                    "Stale fencing token " + token + " for Redis key '" + key + "': a newer lock holder already wrote "
                            + "with token " + newer + " (fence key '" + fence + "', " + GUARD + "). This holder's "
                            + "lease ran out and another client took the lock, so nothing was written. Do not "
                            + "retry with this lease: acquire the lock again for a new token.",
                    key, GUARD, token, newer);
            try {
                onRejected.accept(stale);
            } catch (RuntimeException e) {
                stale.addSuppressed(e);
            }
            throw stale;
        }
    }

    private static void check(String key, long token) {
        if (token < 0) {
            throw new IllegalArgumentException("Fencing token " + token + " for Redis key '" + key + "' is negative ("
                    + GUARD + "): pass lease.fencingToken() of the lease that protects the write.");
        }
    }

    private static long token(String key, LockLease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("The lease for fenced Redis key '" + key + "' is null (" + GUARD
                    + "): pass the LockLease that protects the write, or its fencingToken() through the long overload.");
        }
        return lease.fencingToken();
    }
}
