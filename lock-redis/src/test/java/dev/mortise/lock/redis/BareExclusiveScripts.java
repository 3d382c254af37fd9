package dev.mortise.lock.redis;

import dev.mortise.lock.redis.internal.ExclusiveCommands;
import dev.mortise.lock.redis.internal.RedisKeys;

import java.time.Duration;
import java.util.List;

/**
 * This backend's exclusive acquire and release scripts as bare calls: each script's source with the
 * keys and arguments the backend sends for an uncontended exclusive hold (server-clock tokens, no
 * waiting marker). For lock-benchmarks' floor subjects, which send them with {@code EVALSHA} and
 * nothing else to measure what the backend adds around them.
 *
 * <p>In lock-redis's test jar, beside the scripts it names, so the benchmark needs none of
 * lock-redis's internal packages and the published jar gains no API: a test fixture, with no
 * compatibility promise. {@link BareExclusiveScriptsTest} shows the backend reads these calls as its
 * own hold. Stateless; thread-safe.
 */
public final class BareExclusiveScripts {

    /**
     * One script call.
     *
     * @param source the Lua source, to load with {@code SCRIPT LOAD}
     * @param keys   KEYS, the first being the key that routes the call
     * @param args   ARGV
     */
    public record Call(String source, List<String> keys, List<String> args) {
    }

    private BareExclusiveScripts() {
    }

    /**
     * The acquire of {@code key} (under the key prefix {@code prefix}) by {@code owner} for
     * {@code lease}: replies {1, token} if granted, else {0, holder's PTTL, ...}.
     */
    public static Call acquire(String prefix, String key, String owner, Duration lease) {
        RedisKeys keys = RedisKeys.of(prefix, key);
        return new Call(ExclusiveCommands.ACQUIRE.source(),
                List.of(keys.lock(), keys.fence(), keys.cancelled(owner), keys.readers(), keys.writers()),
                List.of(owner, Long.toString(lease.toMillis()), "1", "0", "0"));
    }

    /** The owner-checked release of {@code key} by {@code owner}: replies 1 if it was the owner's hold. */
    public static Call release(String prefix, String key, String owner) {
        RedisKeys keys = RedisKeys.of(prefix, key);
        return new Call(ExclusiveCommands.RELEASE.source(), List.of(keys.lock()), List.of(owner, keys.channel()));
    }
}
