package dev.mortise.lock.redis.internal.redisson;

import dev.mortise.lock.LockBackendException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

import java.net.URL;
import java.time.Duration;
import java.util.List;

/** Redisson configuration shared by the Redis and Redlock builders (the argument checks are in RedisSettings). */
public final class RedissonClients {

    private RedissonClients() {
    }

    /**
     * A lazily connecting Config for one of the three modes: Redisson's {@code timeout} (a sent
     * command's answer) is the operation timeout, its {@code connectTimeout} (opening a connection,
     * TLS included) the connect timeout.
     */
    public static Config config(String address, List<String> clusterNodes, String sentinelMaster,
                                List<String> sentinels, Duration timeout, Duration connectTimeout) {
        Config config = new Config();
        config.setLazyInitialization(true);
        BaseConfig<?> base;
        if (address != null) {
            base = config.useSingleServer().setAddress(address).setConnectionMinimumIdleSize(2)
                    .setSubscriptionConnectionMinimumIdleSize(1);
        } else if (clusterNodes != null) {
            base = config.useClusterServers().addNodeAddress(clusterNodes.toArray(String[]::new))
                    .setMasterConnectionMinimumIdleSize(2).setSlaveConnectionMinimumIdleSize(1);
        } else {
            base = config.useSentinelServers().setMasterName(sentinelMaster)
                    .addSentinelAddress(sentinels.toArray(String[]::new)).setMasterConnectionMinimumIdleSize(2)
                    .setSlaveConnectionMinimumIdleSize(1);
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        int connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
        // One quick retry fits inside the operation timeout; more would outlive it.
        base.setTimeout(millis).setConnectTimeout(connectMillis).setRetryAttempts(1)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(Math.max(1, Math.min(500, millis / 4)))));
        return config;
    }

    /**
     * Sends {@code EVALSHA} and {@code EVAL} as Mortise asks (Redisson's {@code useScriptCache} off).
     * Mortise keeps scripts by SHA itself and falls back to one {@code EVAL} on {@code NOSCRIPT};
     * with the cache on (Redisson 4's default) that {@code EVAL} became another {@code EVALSHA}, a
     * {@code SCRIPT LOAD} and a third {@code EVALSHA}. Set on the clients Mortise builds, before the
     * user's {@code configure(...)} customizer, which may turn it back on.
     */
    public static void scriptsAsSent(Config config) {
        config.setUseScriptCache(false);
    }

    /** AUTH/ACL and TLS settings, passed to Redisson as given. */
    public static void security(Config config, String username, String password, URL trustStore, String trustPassword) {
        if (password != null) {
            config.setPassword(password);
            if (username != null) {
                config.setUsername(username);
            }
        }
        if (trustStore != null) {
            config.setSslTruststore(trustStore);
            config.setSslTruststorePassword(trustPassword);
        }
    }

    /** Creates the client; Redisson's own failures become a {@link LockBackendException}. */
    public static RedissonClient create(Config config, String where) {
        try {
            return Redisson.create(config);
        } catch (RuntimeException e) {
            throw new LockBackendException("Could not create the Redisson client for " + where + ": " + e
                    + ". Check the addresses, credentials and TLS settings.", null, "redis", e);
        }
    }
}
