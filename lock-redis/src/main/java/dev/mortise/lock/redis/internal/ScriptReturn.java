package dev.mortise.lock.redis.internal;

/**
 * How a script's reply is read, whatever the client: {@link #LIST} an array (integers as {@link Long},
 * bulk strings as {@link String}, nested arrays as lists), {@link #LONG} one integer as {@link Long}.
 */
public enum ScriptReturn {
    LIST,
    LONG
}
