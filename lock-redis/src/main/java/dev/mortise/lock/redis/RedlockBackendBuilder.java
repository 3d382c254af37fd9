package dev.mortise.lock.redis;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.RedisTransport;
import dev.mortise.lock.redis.internal.ScriptRunner;
import dev.mortise.lock.redis.internal.lettuce.LettuceClients;
import dev.mortise.lock.redis.internal.redisson.RedissonClients;
import dev.mortise.lock.redis.internal.redisson.RedissonTransport;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds a {@link RedlockBackend} over at least three independent Redis masters (odd
 * numbers are best: five tolerates two failures). Give either {@link #nodes} (the backend
 * builds and owns one lazily connecting client per address: Redisson's, or Lettuce's with
 * {@link #driver driver(RedisDriver.LETTUCE)}) or {@link #clients} / {@link #lettuce} (yours,
 * one per master, never closed by the backend). Each setter validates its argument and
 * throws {@link IllegalArgumentException} naming the fix. Not thread-safe; build once.
 */
public final class RedlockBackendBuilder {

    private List<String> addresses;
    private List<RedissonClient> clients;
    /** The user's Lettuce RedisClients, kept as Objects so Lettuce loads only if used. */
    private List<Object> lettuceClients;
    private RedisDriver driver = RedisDriver.REDISSON;
    private boolean customized;
    private Duration nodeTimeout = Duration.ofMillis(200);
    private double driftFactor = 0.01;
    private Duration driftFixed = Duration.ofMillis(2);
    private String keyPrefix = "mortise";
    private FencingTokens fencingTokens = FencingTokens.SERVER_CLOCK;
    private String username;
    private String password;
    /** Null unless configure(...) was called: a lambda here would load Redisson's Config with the builder. */
    private Consumer<Config> customizer;

    RedlockBackendBuilder() {
    }

    /** The masters, {@code redis://host:port} each; they must not replicate to one another. */
    public RedlockBackendBuilder nodes(String... addresses) {
        List<String> checked = RedisSettings.checkAddresses(addresses, "Redlock nodes");
        if (checked.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent masters (5 tolerates 2 failures), "
                    + "got " + checked.size() + "; for one server use RedisLockBackend (backend 'redlock')");
        }
        if (checked.stream().distinct().count() != checked.size()) {
            throw new IllegalArgumentException("Redlock nodes must be distinct, got " + checked + " (backend 'redlock')");
        }
        this.addresses = checked;
        return this;
    }

    /** Your clients, one per independent master (single-server mode each). */
    public RedlockBackendBuilder clients(RedissonClient... clients) {
        if (clients == null || clients.length < 3 || List.of(clients).contains(null)) {
            throw new IllegalArgumentException("Redlock needs at least 3 non-null clients, one per independent master "
                    + "(backend 'redlock')");
        }
        this.clients = List.of(clients);
        return this;
    }

    /** Your Lettuce clients, one per independent master (single server each); implies {@link RedisDriver#LETTUCE}. */
    public RedlockBackendBuilder lettuce(io.lettuce.core.RedisClient... clients) {
        if (clients == null || clients.length < 3 || List.of((Object[]) clients).contains(null)) {
            throw new IllegalArgumentException("Redlock needs at least 3 non-null Lettuce clients, one per independent "
                    + "master (backend 'redlock')");
        }
        this.lettuceClients = List.of((Object[]) clients);
        return this;
    }

    /** Which client library the backend builds for {@link #nodes} (default {@link RedisDriver#REDISSON}). */
    public RedlockBackendBuilder driver(RedisDriver driver) {
        this.driver = Objects.requireNonNull(driver, "driver must not be null (backend 'redlock'): omit the call for "
                + "the default REDISSON");
        return this;
    }

    /**
     * How long each node may take per round (default 200 ms): short against the lease, so
     * a dead node costs little. Also the response and connect timeout of built clients.
     */
    public RedlockBackendBuilder nodeTimeout(Duration timeout) {
        this.nodeTimeout = RedisSettings.checkPositive(timeout, "nodeTimeout");
        return this;
    }

    /**
     * The clock drift allowed between client and nodes: {@code lease × factor + fixed}
     * (default 1% + 2 ms). An attempt that ends later than {@code lease − drift} is not granted.
     */
    public RedlockBackendBuilder clockDrift(double factor, Duration fixed) {
        if (!(factor >= 0 && factor < 1)) {
            throw new IllegalArgumentException("clock drift factor must be in [0, 1), was " + factor + " (backend 'redlock')");
        }
        if (fixed == null || fixed.isNegative()) {
            throw new IllegalArgumentException("fixed clock drift must be zero or positive, was " + fixed
                    + " (backend 'redlock')");
        }
        this.driftFactor = factor;
        this.driftFixed = fixed;
        return this;
    }

    /** Prefix of every key (default {@code mortise}); must not contain braces. */
    public RedlockBackendBuilder keyPrefix(String prefix) {
        if (prefix == null || prefix.isBlank() || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("keyPrefix must be non-blank and contain no '{' or '}', was '" + prefix
                    + "' (backend 'redlock')");
        }
        this.keyPrefix = prefix;
        return this;
    }

    /** AUTH for every built client: a password alone or an ACL user and password. */
    public RedlockBackendBuilder credentials(String username, String password) {
        if (password == null || password.isEmpty()) {
            throw new IllegalArgumentException("password must not be empty (backend 'redlock')");
        }
        this.username = username;
        this.password = password;
        return this;
    }

    /** Changes anything else in each built Redisson client's Config (TLS stores, threads...); Redisson only. */
    public RedlockBackendBuilder configure(Consumer<Config> customizer) {
        this.customizer = Objects.requireNonNull(customizer, "customizer must not be null (backend 'redlock')");
        this.customized = true;
        return this;
    }

    /**
     * How each node numbers a grant (default {@link FencingTokens#SERVER_CLOCK}: its counter + 1
     * or its {@code TIME} in microseconds, whichever is larger); the grant's token is the
     * largest of the majority's, as always. With the server clock, tokens keep increasing even
     * when more nodes forget the counter than the majorities overlap by, as long as no node's
     * clock stepped back across its restart. {@link FencingTokens#COUNTER} gives small numbers.
     */
    public RedlockBackendBuilder fencingTokens(FencingTokens scheme) {
        this.fencingTokens = Objects.requireNonNull(scheme, "fencingTokens must not be null (backend 'redlock'): "
                + "omit the call for the default SERVER_CLOCK");
        return this;
    }

    /**
     * @throws IllegalStateException if neither or both of nodes(...) and clients(...) were given
     */
    public RedlockBackend build() {
        long sources = java.util.stream.Stream.of(addresses, clients, lettuceClients).filter(Objects::nonNull).count();
        if (sources != 1) {
            throw new IllegalStateException("Give exactly one of nodes(...), clients(...) or lettuce(...) to build the "
                    + "'redlock' backend");
        }
        boolean lettuce = lettuceClients != null || driver == RedisDriver.LETTUCE;
        if (lettuce) {
            RedisLockBackendBuilder.requireLettuce(RedlockBackend.NAME);
        } else {
            RedisSettings.requireRedisson(RedlockBackend.NAME);
        }
        if (lettuce && (clients != null || customized)) {
            throw new IllegalStateException("clients(RedissonClient...) and configure(...) are Redisson's; with the "
                    + "Lettuce driver give nodes(...) or lettuce(...) (backend 'redlock')");
        }
        if (lettuceClients != null && username != null) {
            throw new IllegalStateException("credentials(...) apply only to clients the 'redlock' backend builds; set "
                    + "them on your Lettuce clients' RedisURI instead");
        }
        List<LockCommands> nodes = new ArrayList<>();
        List<Runnable> closers = new ArrayList<>();
        int count = addresses != null ? addresses.size() : clients != null ? clients.size() : lettuceClients.size();
        for (int i = 0; i < count; i++) {
            RedisTransport transport;
            String where;
            if (addresses != null) {
                where = "Redlock node " + addresses.get(i) + (lettuce ? " (Lettuce)" : "");
                // No retries either way: a node that fails this round is simply not counted.
                transport = lettuce ? LettuceClients.build(addresses.get(i), null, null, null, username, password,
                        null, null, nodeTimeout, nodeTimeout, where)
                        : RedissonDriver.owned(this, addresses.get(i), where);
                closers.add(transport::close);
            } else if (clients != null) {
                transport = RedissonDriver.supplied(clients.get(i));
                where = "Redlock node " + (i + 1) + " of " + count + " (supplied client)";
            } else {
                transport = LettuceClients.wrap(lettuceClients.get(i));
                where = "Redlock node " + (i + 1) + " of " + count + " (supplied Lettuce client)";
                closers.add(transport::close); // closes our connections, leaves the client open
            }
            // Connect as before: within the node timeout (a node not ready this round is not counted).
            ScriptRunner runner = new ScriptRunner(transport, nodeTimeout, nodeTimeout, RedlockBackend.NAME, where);
            nodes.add(new LockCommands(runner, keyPrefix, false, 0, Duration.ZERO, false,
                    fencingTokens == FencingTokens.SERVER_CLOCK));
        }
        return new RedlockBackend(nodes, closers, nodeTimeout, driftFactor, driftFixed, keyPrefix);
    }

    /**
     * The Redisson side of {@link #build()}: a class of its own so that Redisson's types load
     * only when the Redisson driver is chosen (Redisson is an optional dependency).
     */
    private static final class RedissonDriver {

        static RedisTransport supplied(Object client) {
            return new RedissonTransport((RedissonClient) client, false);
        }

        static RedisTransport owned(RedlockBackendBuilder b, String address, String where) {
            return new RedissonTransport(RedissonClients.create(nodeConfig(b, address), where), true);
        }

        private static Config nodeConfig(RedlockBackendBuilder b, String address) {
            Config config = new Config();
            config.setLazyInitialization(true);
            int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, b.nodeTimeout.toMillis()));
            // No retries: a node that fails this round is simply not counted.
            config.useSingleServer().setAddress(address).setTimeout(millis).setConnectTimeout(millis).setRetryAttempts(0)
                    .setRetryDelay(new ConstantDelay(Duration.ofMillis(1))).setConnectionMinimumIdleSize(1)
                    .setSubscriptionConnectionMinimumIdleSize(0);
            RedissonClients.scriptsAsSent(config);
            RedissonClients.security(config, b.username, b.password, null, null);
            if (b.customizer != null) {
                b.customizer.accept(config);
            }
            return config;
        }
    }
}
