package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link WaitRecords} of the Redis backend on one deployment (a single server, a Sentinel group
 * or a Cluster), as {@link WaitRecordCommands} keeps them: a string per holder id with the server's
 * {@code PX} expiry. Each call is one round trip per node, waited for at most the operation timeout
 * once the connection is open (the first call of a fresh backend may first wait up to the connect
 * timeout for it, as every operation does); failures are {@link dev.mortise.lock.LockBackendException}s
 * naming the backend. Writes are not followed by {@code WAIT}, even with {@code waitForReplicas}: a
 * record a failover loses is rewritten by its waiter within half a second. Thread-safe.
 */
public final class RedisWaitRecords implements WaitRecords {

    private final ScriptRunner runner;
    private final WaitRecordCommands commands;

    public RedisWaitRecords(LockCommands commands) {
        this.runner = commands.deployment().runner();
        this.commands = commands.waitRecords();
    }

    /** @return {@code ttl} in whole milliseconds, rounded up: what {@code PX} applies */
    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        if (!holderIds.isEmpty()) {
            runner.ensureReady(null);
            runner.await(commands.publishAsync(holderIds, nonce, text, ttl), runner.timeout(), null,
                    "publish the wait records of " + holderIds.size() + " holder id(s)");
        }
        return WaitRecordCommands.applied(ttl);
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        if (!holderIds.isEmpty()) {
            runner.ensureReady(null);
            runner.await(commands.removeAsync(holderIds, nonce), runner.timeout(), null,
                    "remove the wait records of " + holderIds.size() + " holder id(s)");
        }
    }

    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        if (holderIds.isEmpty()) {
            return Map.of();
        }
        runner.ensureReady(null);
        Map<String, String> stored = runner.await(commands.readAsync(holderIds), runner.timeout(), null,
                "read the wait records of " + holderIds.size() + " holder id(s)");
        Map<String, String> texts = new LinkedHashMap<>();
        stored.forEach((holderId, value) -> texts.put(holderId, WaitRecordCommands.text(value)));
        return texts;
    }
}
