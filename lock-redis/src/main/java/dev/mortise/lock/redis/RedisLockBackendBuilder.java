package dev.mortise.lock.redis;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.RedisTransport;
import dev.mortise.lock.redis.internal.ScriptRunner;
import dev.mortise.lock.redis.internal.lettuce.LettuceClients;
import dev.mortise.lock.redis.internal.redisson.RedissonClients;
import dev.mortise.lock.redis.internal.redisson.RedissonTransport;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds a {@link RedisLockBackend}. Give it exactly one connection source:
 * {@link #address} (one server), {@link #clusterNodes} (Redis Cluster), {@link #sentinel}
 * (a Sentinel group), {@link #config} (any Redisson {@link Config}; the backend builds and
 * owns the client), {@link #client} (your {@link RedissonClient}) or {@link #lettuce(RedisClient)} /
 * {@link #lettuce(RedisClusterClient)} (your Lettuce client); the backend never closes a client
 * you gave it. Each setter validates its argument and throws {@link IllegalArgumentException}
 * naming the fix. Not thread-safe; build once.
 *
 * <p>The client library: Redisson by default; {@link #driver driver(RedisDriver.LETTUCE)} makes
 * the backend build a Lettuce client from the same address, cluster nodes or Sentinel group,
 * credentials, trust store and timeouts ({@code io.lettuce:lettuce-core} must be on the
 * classpath). {@link #config} and {@link #configure} are Redisson's alone.
 *
 * <p>Clients the backend builds connect lazily (Redisson's {@code lazyInitialization}; with
 * Lettuce, on first use), so {@link #build()} never blocks on the network: an unreachable server
 * shows up as a {@link dev.mortise.lock.LockBackendException} on first use, within the
 * {@link #connectTimeout} (Redisson may try the connection twice, so up to about twice that),
 * and a server that stops answering within the {@link #operationTimeout}.
 */
public final class RedisLockBackendBuilder {

    private RedissonClient client;
    /** The user's Lettuce RedisClient or RedisClusterClient, kept as Object so Lettuce loads only if used. */
    private Object lettuceClient;
    private RedisDriver driver = RedisDriver.REDISSON;
    private Config config;
    private String address;
    private List<String> clusterNodes;
    private String sentinelMaster;
    private List<String> sentinels;
    private String username;
    private String password;
    private URL trustStore;
    private String trustStorePassword;
    private Consumer<Config> customizer;
    private Duration operationTimeout = Duration.ofSeconds(3);
    private Duration connectTimeout = Duration.ofSeconds(10);
    private String keyPrefix = "mortise";
    private int replicas;
    private Duration replicaTimeout = Duration.ofMillis(500);
    private boolean fair;
    private FencingTokens fencingTokens = FencingTokens.SERVER_CLOCK;

    RedisLockBackendBuilder() {
    }

    /** One Redis server, {@code redis://host:port} or {@code rediss://host:port} for TLS. */
    public RedisLockBackendBuilder address(String address) {
        this.address = RedisSettings.checkAddress(address, "address");
        return this;
    }

    /** Seed nodes of a Redis Cluster; Redisson discovers the rest and follows resharding. */
    public RedisLockBackendBuilder clusterNodes(String... nodes) {
        this.clusterNodes = RedisSettings.checkAddresses(nodes, "clusterNodes");
        return this;
    }

    /** A Sentinel-monitored master: its name and the Sentinel addresses. */
    public RedisLockBackendBuilder sentinel(String masterName, String... sentinelAddresses) {
        if (masterName == null || masterName.isBlank()) {
            throw new IllegalArgumentException("sentinel master name must not be blank: give the name from "
                    + "'sentinel monitor <name> ...' (backend 'redis')");
        }
        this.sentinelMaster = masterName;
        this.sentinels = RedisSettings.checkAddresses(sentinelAddresses, "sentinel addresses");
        return this;
    }

    /** A full Redisson configuration (any mode, any option); the backend creates and owns the client. */
    public RedisLockBackendBuilder config(Config config) {
        this.config = Objects.requireNonNull(config, "config must not be null (backend 'redis')");
        return this;
    }

    /** Your Redisson client, shared with the rest of the application; {@link RedisLockBackend#close()} leaves it open. */
    public RedisLockBackendBuilder client(RedissonClient client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null (backend 'redis'): pass a RedissonClient "
                    + "or use address(...)");
        }
        this.client = client;
        return this;
    }

    /**
     * Your Lettuce client (single server, or Sentinel through its {@code RedisURI}), shared with the
     * rest of the application; the backend opens two connections on it (commands, pub/sub), closes
     * them on {@link RedisLockBackend#close()} and leaves the client open. Implies
     * {@link RedisDriver#LETTUCE}.
     */
    public RedisLockBackendBuilder lettuce(RedisClient client) {
        this.lettuceClient = requireLettuce(client);
        return this;
    }

    /**
     * Your Lettuce Redis Cluster client, shared with the rest of the application; as
     * {@link #lettuce(RedisClient)}. Scripts go to the master of each lock's slot.
     */
    public RedisLockBackendBuilder lettuce(RedisClusterClient client) {
        this.lettuceClient = requireLettuce(client);
        return this;
    }

    /** Fails with the fix, rather than a NoClassDefFoundError, when the Lettuce driver is chosen without Lettuce. */
    static void requireLettuce(String backend) {
        try {
            Class.forName("io.lettuce.core.RedisClient", false, RedisLockBackendBuilder.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("The Lettuce driver needs io.lettuce:lettuce-core on the classpath (it is an "
                    + "optional dependency of lock-redis; spring-boot-starter-data-redis brings it), or use the Redisson "
                    + "driver, the default (backend '" + backend + "')", e);
        }
    }

    private static Object requireLettuce(Object client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null (backend 'redis'): pass a Lettuce RedisClient "
                    + "or RedisClusterClient, or use address(...) with driver(RedisDriver.LETTUCE)");
        }
        return client;
    }

    /**
     * Which client library the backend builds for {@link #address}, {@link #clusterNodes} or
     * {@link #sentinel} (default {@link RedisDriver#REDISSON}); see {@link RedisDriver}.
     */
    public RedisLockBackendBuilder driver(RedisDriver driver) {
        this.driver = Objects.requireNonNull(driver, "driver must not be null (backend 'redis'): omit the call for "
                + "the default REDISSON");
        return this;
    }

    /** AUTH: a password alone ({@code requirepass}) or an ACL user and password; {@code username} may be null. */
    public RedisLockBackendBuilder credentials(String username, String password) {
        if (password == null || password.isEmpty()) {
            throw new IllegalArgumentException("password must not be empty (backend 'redis'); omit credentials(...) "
                    + "for a server without AUTH");
        }
        this.username = username;
        this.password = password;
        return this;
    }

    /** TLS trust store for {@code rediss://} addresses (passed to Redisson's {@code sslTruststore}). */
    public RedisLockBackendBuilder trustStore(URL trustStore, String password) {
        this.trustStore = Objects.requireNonNull(trustStore, "trustStore must not be null (backend 'redis')");
        this.trustStorePassword = password;
        return this;
    }

    /** Changes anything else in the Config the backend builds (pool sizes, threads, SSL key store...). */
    public RedisLockBackendBuilder configure(Consumer<Config> customizer) {
        this.customizer = Objects.requireNonNull(customizer, "customizer must not be null (backend 'redis')");
        return this;
    }

    /**
     * The longest any single operation waits for Redis's answer, counted from when its command
     * can be written on an open connection (default 3 s); also the response timeout of the client
     * the backend builds (Redisson's {@code timeout}, Lettuce's command timeout). Opening the
     * connection is bounded by {@link #connectTimeout} instead.
     */
    public RedisLockBackendBuilder operationTimeout(Duration timeout) {
        this.operationTimeout = RedisSettings.checkPositive(timeout, "operationTimeout");
        return this;
    }

    /**
     * The longest the backend waits for a connection to open on first use (default 10 s, as
     * Lettuce's and Redisson's own defaults): TCP connect, TLS handshake and the Redis handshake
     * ({@code HELLO}, {@code AUTH}). It does not count against the {@link #operationTimeout} of the
     * call that opened it, so a first call on a small or busy machine, where a first TLS connect on
     * a cold JVM takes seconds, does not fail on a slow handshake. Also the connect timeout of the
     * client the backend builds (Redisson's {@code connectTimeout}; Lettuce's socket connect
     * timeout, TLS handshake timeout and {@code RedisURI} timeout). With {@link #config} or a
     * supplied client, that client's own connect settings apply as well.
     */
    public RedisLockBackendBuilder connectTimeout(Duration timeout) {
        this.connectTimeout = RedisSettings.checkPositive(timeout, "connectTimeout");
        return this;
    }

    /** Prefix of every key and channel (default {@code mortise}); must not contain braces. */
    public RedisLockBackendBuilder keyPrefix(String prefix) {
        if (prefix == null || prefix.isBlank() || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("keyPrefix must be non-blank and contain no '{' or '}' (braces would "
                    + "change the cluster hash tag), was '" + prefix + "' (backend 'redis')");
        }
        this.keyPrefix = prefix;
        return this;
    }

    /**
     * Replication safety: a grant or renewal counts only after {@code replicas} replicas
     * acknowledged it ({@code WAIT replicas timeout}, sent with the script in one pipeline).
     * On a Redis Cluster (either driver) {@code replicas} is per master: each master that took a
     * write must have that many replicas acknowledge it.
     * A grant that is not acknowledged in time is withdrawn and reported as a
     * {@link dev.mortise.lock.LockBackendException}. Narrows, but does not close, the window in
     * which a failover loses a lock: see {@code docs/redis.md}.
     */
    public RedisLockBackendBuilder waitForReplicas(int replicas, Duration timeout) {
        if (replicas < 0) {
            throw new IllegalArgumentException("waitForReplicas needs 0 or more replicas, was " + replicas
                    + " (backend 'redis')");
        }
        this.replicas = replicas;
        this.replicaTimeout = RedisSettings.checkPositive(timeout, "waitForReplicas timeout");
        return this;
    }

    /**
     * Fair mode (default off): waiters queue on the server in arrival order and release
     * hands the lock to the first live waiter inside the release script, so a hand-off costs
     * one push instead of push + retry and no herd retries. Every backend that locks the same
     * keys must use the same mode: a non-fair acquirer ignores the queue (mutual exclusion
     * still holds, the order does not).
     */
    public RedisLockBackendBuilder fair(boolean fair) {
        this.fair = fair;
        return this;
    }

    /**
     * How fencing tokens are numbered (default {@link FencingTokens#SERVER_CLOCK}: tokens that
     * keep increasing when Redis loses the counter, e.g. on a restart without persistence or a
     * failover that loses unreplicated writes). {@link FencingTokens#COUNTER} gives 1, 2, 3…
     * but repeats tokens after such a loss. Every backend that locks the same keys should use
     * the same scheme: a counter-scheme acquirer after a clock-scheme one still gets a larger
     * token, but small numbers only come back after the counter key is deleted.
     */
    public RedisLockBackendBuilder fencingTokens(FencingTokens scheme) {
        this.fencingTokens = Objects.requireNonNull(scheme, "fencingTokens must not be null (backend 'redis'): "
                + "omit the call for the default SERVER_CLOCK");
        return this;
    }

    /**
     * With {@link #config} the Redisson timeouts are yours; the operation timeout still
     * bounds every wait of the backend for an answer, and the connect timeout its wait for a
     * connection to open.
     *
     * @throws IllegalStateException if not exactly one connection source was given, or
     *                               client settings were given with {@link #client}
     */
    public RedisLockBackend build() {
        long sources = java.util.stream.Stream.of(client, config, address, clusterNodes, sentinelMaster, lettuceClient)
                .filter(Objects::nonNull).count();
        if (sources != 1) {
            throw new IllegalStateException("Give exactly one of address(...), clusterNodes(...), sentinel(...), "
                    + "config(...), client(...) or lettuce(...) to build the 'redis' backend; " + sources + " were given");
        }
        boolean supplied = client != null || lettuceClient != null;
        if (supplied && (username != null || password != null || trustStore != null || customizer != null)) {
            throw new IllegalStateException("credentials(...), trustStore(...) and configure(...) apply only to clients "
                    + "the 'redis' backend builds; set them on your " + (client != null ? "RedissonClient's Config"
                    : "Lettuce client's RedisURI and ClientOptions") + " instead");
        }
        boolean lettuce = lettuceClient != null || driver == RedisDriver.LETTUCE;
        if (lettuce && (client != null || config != null || customizer != null)) {
            throw new IllegalStateException("client(RedissonClient), config(...) and configure(...) are Redisson's; with "
                    + "the Lettuce driver give address(...), clusterNodes(...), sentinel(...) or lettuce(...) "
                    + "(backend 'redis')");
        }
        RedisTransport transport;
        String where;
        if (lettuce) {
            requireLettuce("redis");
            boolean cluster = lettuceClient != null ? LettuceClients.isCluster(lettuceClient) : clusterNodes != null;
            if (lettuceClient != null) {
                where = "Redis via the supplied Lettuce " + (cluster ? "RedisClusterClient" : "RedisClient");
                transport = LettuceClients.wrap(lettuceClient);
            } else {
                where = RedisSettings.describe(address, clusterNodes, sentinelMaster, sentinels) + " (Lettuce)";
                transport = LettuceClients.build(address, clusterNodes, sentinelMaster, sentinels, username, password,
                        trustStore, trustStorePassword, operationTimeout, connectTimeout, where);
            }
        } else {
            RedisSettings.requireRedisson("redis");
            where = client != null ? "Redis via the supplied RedissonClient"
                    : RedisSettings.describe(address, clusterNodes, sentinelMaster, sentinels);
            transport = RedissonDriver.transport(this, where);
        }
        ScriptRunner runner = new ScriptRunner(transport, operationTimeout, connectTimeout, RedisLockBackend.NAME,
                where);
        return new RedisLockBackend(runner, new LockCommands(runner, keyPrefix, transport.cluster(), replicas,
                replicaTimeout, fair, fencingTokens == FencingTokens.SERVER_CLOCK));
    }

    /**
     * The Redisson side of {@link #build()}: a class of its own so that Redisson's types load
     * only when the Redisson driver is chosen (Redisson is an optional dependency).
     */
    private static final class RedissonDriver {

        static RedisTransport transport(RedisLockBackendBuilder b, String where) {
            if (b.client != null) {
                return new RedissonTransport(b.client, false);
            }
            Config built = b.config != null ? new Config(b.config) : RedissonClients.config(b.address, b.clusterNodes,
                    b.sentinelMaster, b.sentinels, b.operationTimeout, b.connectTimeout);
            RedissonClients.scriptsAsSent(built);
            RedissonClients.security(built, b.username, b.password, b.trustStore, b.trustStorePassword);
            if (b.customizer != null) {
                b.customizer.accept(built);
            }
            return new RedissonTransport(RedissonClients.create(built, where), true);
        }
    }
}
