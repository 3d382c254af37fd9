package dev.mortise.lock.redis.internal;

import org.redisson.api.RScript;

import java.util.List;

/**
 * One script invocation: which script, the key that routes it to its node, its KEYS and
 * ARGV, and how to decode its reply.
 */
public record ScriptCall(LuaScript script, String routingKey, List<Object> keys, RScript.ReturnType returnType,
                         Object[] args) {

    public static ScriptCall of(LuaScript script, RScript.ReturnType returnType, List<Object> keys, Object... args) {
        return new ScriptCall(script, keys.isEmpty() ? null : (String) keys.get(0), keys, returnType, args);
    }
}
