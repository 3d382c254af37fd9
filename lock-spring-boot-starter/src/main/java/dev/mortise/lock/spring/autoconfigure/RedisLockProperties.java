package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.FencingTokens;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the Redis lock backend ({@code mortise.lock.redis.*}): which client library it
 * talks through ({@link #getClient() client}), and the connection of the client it builds when
 * it does not reuse the application's ({@code RedissonClient} bean or Spring Data Redis {@code
 * LettuceConnectionFactory}). Give one of address, cluster-nodes or sentinel-master.
 */
@ConfigurationProperties("mortise.lock.redis")
public class RedisLockProperties {

    /**
     * Whether to configure the Redis backend when it is asked for (mortise.lock.backend=redis,
     * these properties, a RedissonClient bean, or lock-redis as the only backend module).
     */
    private boolean enabled = true;

    /**
     * Which Redis client the backend talks through: auto (the default: the application's
     * RedissonClient bean, else its Spring Data Redis LettuceConnectionFactory, else a client of
     * its own, Redisson if on the class path, else Lettuce), redisson or lettuce. Connection
     * settings (address, cluster-nodes, sentinel-master) always make the backend build its own
     * client, on this driver. See docs/spring-boot.md, "Redis backend".
     */
    private Client client = Client.AUTO;

    /**
     * One Redis server: redis://host:port, or rediss://host:port for TLS. Defaults to
     * redis://127.0.0.1:6379 when no other connection setting or RedissonClient bean is given.
     */
    private String address;

    /**
     * Seed nodes of a Redis Cluster (redis://host:port each).
     */
    private List<String> clusterNodes = new ArrayList<>();

    /**
     * Name of the Sentinel-monitored master.
     */
    private String sentinelMaster;

    /**
     * Addresses of the Sentinels (redis://host:port each).
     */
    private List<String> sentinelNodes = new ArrayList<>();

    /**
     * ACL user name (with password); omit for requirepass-only servers.
     */
    private String username;

    /**
     * Password (AUTH).
     */
    private String password;

    /**
     * Longest a single Redis call may take before failing; defaults to the backend's (3s).
     */
    private Duration operationTimeout;

    /**
     * Longest the backend waits for a connection to Redis to open on first use (TCP connect, TLS
     * handshake, HELLO/AUTH), apart from the operation timeout of the call that opens it; defaults
     * to the backend's (10s). Also the connect timeout of the client the backend builds; a shared
     * client bean's own connect settings apply as well.
     */
    private Duration connectTimeout;

    /**
     * Prefix of the Redis keys the backend writes; defaults to the backend's (mortise).
     */
    private String keyPrefix;

    /**
     * How fencing tokens are numbered: server-clock (the default; max(counter + 1, the Redis
     * server's TIME in microseconds), so tokens keep increasing after Redis loses its fence
     * counters in a restart without persistence or a lossy failover) or counter (1, 2, 3... per
     * key, which start again at 1 after such a loss). See docs/redis.md, "Fencing tokens".
     */
    private FencingTokens fencingTokens = FencingTokens.SERVER_CLOCK;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Client getClient() {
        return client;
    }

    public void setClient(Client client) {
        this.client = client;
    }

    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    public List<String> getClusterNodes() {
        return clusterNodes;
    }

    public void setClusterNodes(List<String> clusterNodes) {
        this.clusterNodes = clusterNodes;
    }

    public String getSentinelMaster() {
        return sentinelMaster;
    }

    public void setSentinelMaster(String sentinelMaster) {
        this.sentinelMaster = sentinelMaster;
    }

    public List<String> getSentinelNodes() {
        return sentinelNodes;
    }

    public void setSentinelNodes(List<String> sentinelNodes) {
        this.sentinelNodes = sentinelNodes;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public FencingTokens getFencingTokens() {
        return fencingTokens;
    }

    public void setFencingTokens(FencingTokens fencingTokens) {
        this.fencingTokens = fencingTokens;
    }

    /** The values of {@code mortise.lock.redis.client}. */
    public enum Client {

        /**
         * The application's RedissonClient bean, else its LettuceConnectionFactory (Spring Data
         * Redis), else a client of Mortise's own: Redisson if on the class path, else Lettuce.
         */
        AUTO,

        /** Redisson (org.redisson:redisson): the RedissonClient bean if unique, else Mortise's own. */
        REDISSON,

        /**
         * Lettuce (io.lettuce:lettuce-core): the native client of the application's
         * LettuceConnectionFactory if unique, else Mortise's own.
         */
        LETTUCE
    }
}
