package dev.mortise.lock.redis.internal;

import java.util.List;

/**
 * One script invocation: which script, the key that routes it to its node, its KEYS and
 * ARGV (all strings), and how to decode its reply.
 */
public record ScriptCall(LuaScript script, String routingKey, List<Object> keys, ScriptReturn returnType,
                         Object[] args) {

    public static ScriptCall of(LuaScript script, ScriptReturn returnType, List<Object> keys, Object... args) {
        return new ScriptCall(script, keys.isEmpty() ? null : (String) keys.get(0), keys, returnType, args);
    }
}
