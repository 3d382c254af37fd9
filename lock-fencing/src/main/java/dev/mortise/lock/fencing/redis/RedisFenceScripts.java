package dev.mortise.lock.fencing.redis;

/**
 * The Lua scripts behind fenced Redis writes, for any client ({@link RedissonFencedWrites}
 * runs them on Redisson; Lettuce, Jedis or redis-cli run the same text with {@code EVAL} /
 * {@code EVALSHA}).
 *
 * <p>Each script takes {@code KEYS[1]} = the data key, {@code KEYS[2]} = its fence key
 * ({@link #fenceKey}), {@code ARGV[1]} = the fencing token in decimal (no sign, no leading
 * zeros). It refuses the write, changing nothing, if the fence key holds a higher token, and
 * answers that token as a bulk string; otherwise it stores the token in the fence key, does the
 * write and answers nil. An equal token writes (the same holder writing again). Tokens are
 * compared as decimal strings (length, then text), exact for every {@code long}: Lua numbers
 * are doubles and would round tokens above 2^53.
 *
 * <p>The fence key never expires: a fence that disappears (expiry, {@code allkeys-*}
 * eviction, {@code FLUSHALL}) lets a stale token write again.
 */
public final class RedisFenceScripts {

    private static final String CHECK = """
            local function higher(a, b)
              if #a ~= #b then return #a > #b end
              return a > b
            end
            local seen = redis.call('GET', KEYS[2])
            if seen and higher(seen, ARGV[1]) then return seen end
            redis.call('SET', KEYS[2], ARGV[1])
            """;

    /**
     * Fenced {@code SET}: {@code ARGV[2]} = the value, {@code ARGV[3]} = time to live in
     * milliseconds ({@code 0} for none).
     */
    public static final String SET = CHECK + """
            if tonumber(ARGV[3]) > 0 then
              redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
            else
              redis.call('SET', KEYS[1], ARGV[2])
            end
            return false
            """;

    /** Fenced {@code HSET}: {@code ARGV[2..]} = field, value, field, value … (at least one pair). */
    public static final String HSET = CHECK + """
            redis.call('HSET', KEYS[1], unpack(ARGV, 2))
            return false
            """;

    private RedisFenceScripts() {
    }

    /**
     * The fence key of {@code key}, in the same Redis Cluster slot, so one script may touch
     * both: {@code key + ":fence"} when {@code key} has a hash tag ({@code "{account:42}:balance"}
     * → {@code "{account:42}:balance:fence"}), otherwise {@code "{" + key + "}:fence"}, whose
     * hash tag is the whole of {@code key} ({@code "account:42"} → {@code "{account:42}:fence"}).
     *
     * @throws IllegalArgumentException if {@code key} is null or blank, or has a {@code '}'} but
     *                                  no hash tag (no name in its slot can be made): give it a tag
     */
    public static String fenceKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("The fenced Redis key must not be " + (key == null ? "null" : "blank")
                    + " (redis-fence): pass the key you write, e.g. 'account:42'.");
        }
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key + ":fence";
            }
        }
        if (key.indexOf('}') >= 0) {
            throw new IllegalArgumentException("Redis key '" + key + "' contains '}' but no hash tag (redis-fence), so "
                    + "no fence key can be named in its Cluster slot: give the key a hash tag, e.g. '{account:42}:x'.");
        }
        return "{" + key + "}:fence";
    }
}
