package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The read-only family: what the server keeps for a key ({@code inspect.lua}, one read that writes
 * nothing) and the health check ({@code ping.lua}). Thread-safe.
 */
public final class Inspection {

    /** {@code inspect.lua}: {mode, waiters, owner, remaining-ms, token, ...}. */
    static final LuaScript INSPECT = LuaFiles.withPrelude("inspect");
    /** {@code ping.lua}: no keys, replies 1. */
    public static final LuaScript PING = LuaFiles.alone("ping");

    private final Deployment deployment;

    Inspection(Deployment deployment) {
        this.deployment = deployment;
    }

    /** The one read of {@link #INSPECT}: every name of the key it reads lives in the key's slot. */
    private ScriptCall inspectCall(RedisKeys keys) {
        return ScriptCall.of(INSPECT, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fence(), keys.readers(), keys.queue(), keys.waiters()),
                deployment.fair() ? "1" : "0");
    }

    /** Starts {@link #INSPECT} of {@code key}; the reply is read by {@link #toKeyState}. */
    public CompletableFuture<List<Object>> inspectAsync(RedisKeys keys) {
        return deployment.runner().callAsync(inspectCall(keys));
    }

    /** What the server keeps for {@code key}, owners as stored (one script call, read-only). */
    public KeyState inspect(String key) {
        RedisKeys keys = deployment.keys(key);
        ScriptRunner runner = deployment.runner();
        runner.ensureReady(key);
        return toKeyState(runner.call(inspectCall(keys), key, "inspect"));
    }

    /** Reads an {@link #INSPECT} reply: {mode, waiters, owner, remaining-ms, token, ...}. */
    public static KeyState toKeyState(List<Object> reply) {
        String mode = String.valueOf(reply.get(0));
        long waiting = ((Number) reply.get(1)).longValue();
        OptionalInt waiters = waiting < 0 ? OptionalInt.empty() : OptionalInt.of((int) Math.min(waiting, Integer.MAX_VALUE));
        if (mode.equals("F")) {
            return KeyState.free(waiters);
        }
        List<KeyState.Holder> holders = new ArrayList<>((reply.size() - 2) / 3);
        for (int i = 2; i + 2 < reply.size(); i += 3) {
            String token = String.valueOf(reply.get(i + 2));
            holders.add(new KeyState.Holder(String.valueOf(reply.get(i)),
                    token.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token)),
                    Optional.of(Duration.ofMillis(((Number) reply.get(i + 1)).longValue()))));
        }
        return new KeyState(mode.equals("X") ? LockMode.EXCLUSIVE : LockMode.SHARED, holders, waiters);
    }

    /** The call of {@link #PING}. */
    static ScriptCall pingCall() {
        return ScriptCall.of(PING, ScriptReturn.LONG, List.of());
    }

    public CompletableFuture<Long> pingAsync() {
        return deployment.runner().callAsync(pingCall());
    }

    public void ping() {
        deployment.runner().call(pingCall(), null, "answer a ping");
    }
}
