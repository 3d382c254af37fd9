package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.RedisTransport;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;

import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.List;

/**
 * Lettuce clients for the Redis builder: built from the same settings as the Redisson ones
 * (address, cluster nodes or Sentinel group; credentials; trust store; operation and connect
 * timeouts), or
 * the user's own client wrapped as is. Referenced only when Lettuce is chosen, so lock-redis
 * runs without Lettuce on the classpath otherwise.
 */
public final class LettuceClients {

    private LettuceClients() {
    }

    /**
     * A transport over a client built here (closed with the backend). Builds without connecting:
     * the first operation connects.
     *
     * @param timeout        the operation timeout: commands expire that long after they are written
     * @param connectTimeout bounds opening a connection: the TCP connect, the TLS handshake, and
     *                       (Lettuce's handshake guard, which runs from the channel's registration)
     *                       the whole set-up through {@code HELLO}/{@code AUTH}
     */
    public static RedisTransport build(String address, List<String> clusterNodes, String sentinelMaster,
                                       List<String> sentinels, String username, String password, URL trustStore,
                                       String trustPassword, Duration timeout, Duration connectTimeout,
                                       String where) {
        try {
            ClientOptions.Builder options = clusterNodes != null ? ClusterClientOptions.builder()
                    // follow resharding and failover as soon as a MOVED, ASK or reconnect says so
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers().build())
                    : ClientOptions.builder();
            options.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                    // A command nobody waits for any more leaves Lettuce's queue after the operation timeout
                    // (a fixed timeout: the URI's, below, is the connect timeout).
                    .timeoutOptions(TimeoutOptions.enabled(timeout));
            if (trustStore != null) {
                options.sslOptions(SslOptions.builder().jdkSslProvider().truststore(trustStore, trustPassword)
                        .handshakeTimeout(connectTimeout).build());
            }
            if (clusterNodes != null) {
                RedisClusterClient client = RedisClusterClient.create(clusterNodes.stream()
                        .map(a -> uri(a, username, password, connectTimeout)).toList());
                client.setOptions(((ClusterClientOptions.Builder) options).build());
                return new LettuceTransport(client, null, true);
            }
            RedisURI uri;
            if (address != null) {
                uri = uri(address, username, password, connectTimeout);
            } else {
                URI first = URI.create(sentinels.get(0));
                RedisURI.Builder b = RedisURI.Builder.sentinel(first.getHost(), first.getPort(), sentinelMaster);
                for (String sentinel : sentinels.subList(1, sentinels.size())) {
                    URI more = URI.create(sentinel);
                    b.withSentinel(more.getHost(), more.getPort());
                }
                b.withSsl("rediss".equals(first.getScheme())).withTimeout(connectTimeout);
                credentials(b, username, password);
                uri = b.build();
            }
            RedisClient client = RedisClient.create(uri);
            client.setOptions(options.build());
            return new LettuceTransport(client, uri, true);
        } catch (RuntimeException e) {
            throw new LockBackendException("Could not create the Lettuce client for " + where + ": " + e
                    + ". Check the addresses, credentials and TLS settings.", null, "redis", e);
        }
    }

    /**
     * @param connectTimeout the URI's timeout: Lettuce bounds a connection's whole set-up by it
     *                       (commands have the fixed operation timeout of the client's TimeoutOptions)
     */
    private static RedisURI uri(String address, String username, String password, Duration connectTimeout) {
        RedisURI.Builder b = RedisURI.builder(RedisURI.create(address)).withTimeout(connectTimeout);
        credentials(b, username, password);
        return b.build();
    }

    private static void credentials(RedisURI.Builder b, String username, String password) {
        if (password != null) {
            if (username != null) {
                b.withAuthentication(username, password);
            } else {
                b.withPassword(password);
            }
        }
    }

    /** A transport over the user's {@code RedisClient} or {@code RedisClusterClient}, which it never closes. */
    public static RedisTransport wrap(Object client) {
        return new LettuceTransport((AbstractRedisClient) client, null, false);
    }

    /** Whether {@code client} (the user's) is a {@code RedisClusterClient}. */
    public static boolean isCluster(Object client) {
        return client instanceof RedisClusterClient;
    }
}
