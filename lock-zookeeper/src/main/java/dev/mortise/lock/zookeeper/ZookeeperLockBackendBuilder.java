package dev.mortise.lock.zookeeper;

import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.client.ZKClientConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a {@link ZookeeperLockBackend}, over a {@link CuratorFramework} you supply (which
 * stays yours: the backend never closes it) or one it builds from a connect string (which
 * it closes with itself). Each setter validates its argument and throws
 * {@link IllegalArgumentException} naming the fix.
 *
 * <pre>{@code
 * ZookeeperLockBackend.builder()
 *         .connectString("zk1:2181,zk2:2181,zk3:2181")
 *         .sessionTimeout(Duration.ofSeconds(30))    // the lease of every hold
 *         .operationTimeout(Duration.ofSeconds(5))   // no call waits longer
 *         .authorization("digest", "app:secret".getBytes(UTF_8))
 *         .build();
 * }</pre>
 */
public final class ZookeeperLockBackendBuilder {

    /** Where lock nodes live unless {@link #rootPath} says otherwise. */
    public static final String DEFAULT_ROOT = "/mortise/locks";
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(10);

    private String connectString;
    private CuratorFramework client;
    private String rootPath = DEFAULT_ROOT;
    private Duration sessionTimeout;
    private Duration connectionTimeout;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
    private final List<AuthInfo> authorizations = new ArrayList<>();
    private ACLProvider aclProvider;
    private ZKClientConfig clientConfig;

    ZookeeperLockBackendBuilder() {
    }

    /** The ensemble to connect to, e.g. {@code "zk1:2181,zk2:2181,zk3:2181"} (optionally with a chroot). */
    public ZookeeperLockBackendBuilder connectString(String connectString) {
        if (connectString == null || connectString.isBlank()) {
            throw new IllegalArgumentException("ZooKeeper connectString must not be null or blank (backend 'zookeeper');"
                    + " give host:port pairs such as zk1:2181,zk2:2181");
        }
        this.connectString = connectString.strip();
        return this;
    }

    /**
     * A started client to use instead of building one (Spring's {@code CuratorFramework}
     * bean, say). Its session, retry policy, authorization and ACL provider apply; the
     * backend does not close it.
     */
    public ZookeeperLockBackendBuilder client(CuratorFramework client) {
        if (client == null) {
            throw new IllegalArgumentException("CuratorFramework must not be null (backend 'zookeeper')");
        }
        this.client = client;
        return this;
    }

    /** The absolute path under which every key gets its own parent node; default {@value #DEFAULT_ROOT}. */
    public ZookeeperLockBackendBuilder rootPath(String rootPath) {
        this.rootPath = LockPaths.validateRoot(rootPath);
        return this;
    }

    /**
     * The session timeout to ask for (the server bounds it by its min/max session timeout):
     * how long after a holder vanishes its locks are freed. Keep the client's default lease
     * no longer than this. Default 30 s; only for a client this builder builds.
     */
    public ZookeeperLockBackendBuilder sessionTimeout(Duration timeout) {
        this.sessionTimeout = positiveMillis(timeout, "sessionTimeout");
        return this;
    }

    /** How long the built client tries to connect before an operation attempt fails; default 10 s. */
    public ZookeeperLockBackendBuilder connectionTimeout(Duration timeout) {
        this.connectionTimeout = positiveMillis(timeout, "connectionTimeout");
        return this;
    }

    /**
     * The longest any single call to ZooKeeper may take before it fails with
     * {@link dev.mortise.lock.LockBackendException}, whatever the client's retry policy;
     * default 10 s. Applies to supplied clients too.
     */
    public ZookeeperLockBackendBuilder operationTimeout(Duration timeout) {
        this.operationTimeout = positiveMillis(timeout, "operationTimeout");
        return this;
    }

    /** Adds an authorization (e.g. scheme {@code "digest"}, auth {@code "user:password"} bytes). Repeatable. */
    public ZookeeperLockBackendBuilder authorization(String scheme, byte[] auth) {
        if (scheme == null || scheme.isBlank() || auth == null) {
            throw new IllegalArgumentException("ZooKeeper authorization needs a scheme (such as \"digest\") and the "
                    + "auth bytes (backend 'zookeeper')");
        }
        authorizations.add(new AuthInfo(scheme, auth.clone()));
        return this;
    }

    /** The ACLs of the nodes the backend creates (parents and lock nodes); default open ACLs. */
    public ZookeeperLockBackendBuilder aclProvider(ACLProvider aclProvider) {
        if (aclProvider == null) {
            throw new IllegalArgumentException("ACLProvider must not be null (backend 'zookeeper')");
        }
        this.aclProvider = aclProvider;
        return this;
    }

    /**
     * ZooKeeper client settings passed through as they are — SASL/Kerberos
     * ({@code zookeeper.sasl.client}, the JAAS section), TLS, and so on.
     */
    public ZookeeperLockBackendBuilder zkClientConfig(ZKClientConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("ZKClientConfig must not be null (backend 'zookeeper')");
        }
        this.clientConfig = config;
        return this;
    }

    /**
     * Builds the backend. A client it builds is started but not awaited: an unreachable
     * ensemble shows up as {@link dev.mortise.lock.LockBackendException} on first use.
     *
     * @throws IllegalArgumentException if neither or both of connectString and client are
     *                                  set, or client options are combined with a client
     * @throws IllegalStateException    if the supplied client is not started
     */
    public ZookeeperLockBackend build() {
        if ((connectString == null) == (client == null)) {
            throw new IllegalArgumentException("Give the ZooKeeper backend exactly one of connectString(...) or "
                    + "client(...) (backend 'zookeeper')");
        }
        if (client != null) {
            if (sessionTimeout != null || connectionTimeout != null || !authorizations.isEmpty() || aclProvider != null
                    || clientConfig != null) {
                throw new IllegalArgumentException("sessionTimeout, connectionTimeout, authorization, aclProvider and "
                        + "zkClientConfig apply only to a client the backend builds (backend 'zookeeper'); configure "
                        + "them on the CuratorFramework you supply instead");
            }
            if (client.getState() != CuratorFrameworkState.STARTED) {
                throw new IllegalStateException("The CuratorFramework given to the ZooKeeper backend is "
                        + client.getState() + "; call start() on it first (the backend never starts or closes a client"
                        + " it did not build)");
            }
            return new ZookeeperLockBackend(client, false, rootPath, operationTimeout,
                    client.getZookeeperClient().getCurrentConnectionString());
        }
        CuratorFramework built = newClient();
        built.start();
        return new ZookeeperLockBackend(built, true, rootPath, operationTimeout, connectString);
    }

    private CuratorFramework newClient() {
        Duration session = sessionTimeout != null ? sessionTimeout : DEFAULT_SESSION_TIMEOUT;
        Duration connection = connectionTimeout != null ? connectionTimeout : DEFAULT_CONNECTION_TIMEOUT;
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) session.toMillis())
                .connectionTimeoutMs((int) connection.toMillis())
                // Retries never outlast the operation timeout; our own wait bounds every call anyway.
                .retryPolicy(new RetryUntilElapsed((int) operationTimeout.toMillis(), 100));
        if (!authorizations.isEmpty()) {
            builder.authorization(authorizations);
        }
        if (aclProvider != null) {
            builder.aclProvider(aclProvider);
        }
        if (clientConfig != null) {
            builder.zkClientConfig(clientConfig);
        }
        return builder.build();
    }

    private static Duration positiveMillis(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("ZooKeeper " + name + " must be positive, was " + value
                    + " (backend 'zookeeper')");
        }
        if (value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ZooKeeper " + name + " must be between 1 ms and about 24 days, was "
                    + value + " (backend 'zookeeper')");
        }
        return value;
    }
}
