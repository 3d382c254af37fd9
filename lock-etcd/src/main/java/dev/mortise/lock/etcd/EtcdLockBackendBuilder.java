package dev.mortise.lock.etcd;

import dev.mortise.lock.etcd.internal.KeySpace;
import dev.mortise.lock.etcd.internal.LockEngine;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.netty.handler.ssl.SslContext;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds an {@link EtcdLockBackend}, either over a jetcd {@link Client} you supply (it stays
 * yours: the backend never closes it) or over one it creates from {@link #endpoints},
 * with optional user/password and TLS passed through to jetcd. Every setter validates its
 * argument and throws {@link IllegalArgumentException} naming the fix. Not thread-safe.
 */
public final class EtcdLockBackendBuilder {

    /** Default operation timeout: every call to etcd answers or fails within it. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /** The shortest operation timeout the builder takes. */
    static final Duration MIN_OPERATION_TIMEOUT = Duration.ofMillis(10);
    /** Default namespace: the string every lock key starts with. */
    public static final String DEFAULT_NAMESPACE = "mortise/locks/";

    private final List<String> endpoints = new ArrayList<>();
    private Client client;
    private String user;
    private String password;
    private SslContext sslContext;
    private Consumer<ClientBuilder> customizer = b -> { };
    private String namespace = DEFAULT_NAMESPACE;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;

    EtcdLockBackendBuilder() {
    }

    /** etcd client URLs such as {@code http://10.0.0.1:2379} or {@code https://...}; at least one. */
    public EtcdLockBackendBuilder endpoints(String... endpoints) {
        return endpoints(Arrays.asList(requireNonNull(endpoints, "endpoints")));
    }

    /** @see #endpoints(String...) */
    public EtcdLockBackendBuilder endpoints(List<String> endpoints) {
        requireNonNull(endpoints, "endpoints");
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("etcd backend: give at least one endpoint, e.g. http://127.0.0.1:2379");
        }
        for (String endpoint : endpoints) {
            URI uri;
            try {
                uri = URI.create(requireNonNull(endpoint, "endpoint").trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("etcd backend: endpoint '" + endpoint + "' is not a URL; use "
                        + "http://host:port or https://host:port", e);
            }
            if (uri.getScheme() == null || uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("etcd backend: endpoint '" + endpoint + "' needs a scheme, host and"
                        + " port, e.g. http://127.0.0.1:2379");
            }
            this.endpoints.add(uri.toString());
        }
        return this;
    }

    /** Uses your jetcd client (its endpoints, auth, TLS and namespace); the backend never closes it. */
    public EtcdLockBackendBuilder client(Client client) {
        this.client = requireNonNull(client, "client");
        return this;
    }

    /** etcd user, with {@link #password}; passed to jetcd. */
    public EtcdLockBackendBuilder user(String user) {
        if (requireNonNull(user, "user").isBlank()) {
            throw new IllegalArgumentException("etcd backend: user must not be blank; leave it unset without auth");
        }
        this.user = user;
        return this;
    }

    /** etcd password, with {@link #user}; passed to jetcd. */
    public EtcdLockBackendBuilder password(String password) {
        this.password = requireNonNull(password, "password");
        return this;
    }

    /**
     * TLS for {@code https://} endpoints: a Netty context built with
     * {@code io.grpc.netty.GrpcSslContexts.forClient()} (trust store, and client
     * certificate for mutual TLS); passed to jetcd.
     */
    public EtcdLockBackendBuilder sslContext(SslContext sslContext) {
        this.sslContext = requireNonNull(sslContext, "sslContext");
        return this;
    }

    /** Any other jetcd option (authority, interceptors, keep-alive) for the client the builder creates. */
    public EtcdLockBackendBuilder clientCustomizer(Consumer<ClientBuilder> customizer) {
        this.customizer = requireNonNull(customizer, "clientCustomizer");
        return this;
    }

    /**
     * The string every lock key starts with (default {@value #DEFAULT_NAMESPACE}); give
     * applications that must never share a lock different namespaces.
     */
    public EtcdLockBackendBuilder namespace(String namespace) {
        requireNonNull(namespace, "namespace");
        if (namespace.getBytes(StandardCharsets.UTF_8).length > 256) {
            throw new IllegalArgumentException("etcd backend: namespace must be at most 256 bytes, was '" + namespace
                    + "'");
        }
        this.namespace = namespace;
        return this;
    }

    /**
     * How long any one call to etcd may take before it fails with
     * {@link dev.mortise.lock.LockBackendException} (default 5 s): an unreachable cluster
     * never hangs a caller longer. Between 10 ms and 1 hour; jetcd's retry back-off of a client
     * this builder creates is scaled down to fit a timeout shorter than its defaults.
     */
    public EtcdLockBackendBuilder operationTimeout(Duration timeout) {
        requireNonNull(timeout, "operationTimeout");
        if (timeout.compareTo(MIN_OPERATION_TIMEOUT) < 0 || timeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("etcd backend: operationTimeout must be between "
                    + MIN_OPERATION_TIMEOUT.toMillis() + " ms and 1 hour, was " + timeout);
        }
        this.operationTimeout = timeout;
        return this;
    }

    /**
     * @throws IllegalStateException if neither endpoints nor a client were given, both
     *                               were, or only one of user and password
     */
    public EtcdLockBackend build() {
        if (client != null && (!endpoints.isEmpty() || user != null || password != null || sslContext != null)) {
            throw new IllegalStateException("etcd backend: give either client(...) or endpoints/user/password/TLS, "
                    + "not both: a client you supply is used as it is");
        }
        if (client == null && endpoints.isEmpty()) {
            throw new IllegalStateException("etcd backend: give endpoints(...) such as http://127.0.0.1:2379, or a "
                    + "jetcd client(...)");
        }
        if ((user == null) != (password == null)) {
            throw new IllegalStateException("etcd backend: give both user and password, or neither");
        }
        boolean owns = client == null;
        Client etcd = owns ? createClient() : client;
        LockEngine engine = new LockEngine(etcd, new KeySpace(namespace), operationTimeout);
        String description = (owns ? String.join(",", endpoints) : "your client") + ", namespace '" + namespace + "'";
        return new EtcdLockBackend(engine, etcd, owns, description);
    }

    /** jetcd's default first retry delay (500 ms), or a tenth of a shorter timeout. */
    static long retryDelayMillis(Duration operationTimeout) {
        return Math.max(1, Math.min(500, operationTimeout.toMillis() / 10));
    }

    /** jetcd's default longest retry delay (2.5 s), or half of a shorter timeout; always above the first delay. */
    static long retryMaxDelayMillis(Duration operationTimeout) {
        return Math.max(retryDelayMillis(operationTimeout) + 1, Math.min(2500, operationTimeout.toMillis() / 2));
    }

    private Client createClient() {
        ClientBuilder builder = Client.builder().endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(operationTimeout)
                .retryMaxDuration(operationTimeout)
                // jetcd retries after 500 ms backing off to 2.5 s; its retry policy refuses a maximum
                // duration that is not above the first delay, which made every call fail with an
                // IllegalStateException under an operation timeout of 500 ms or less.
                .retryDelay(retryDelayMillis(operationTimeout))
                .retryMaxDelay(retryMaxDelayMillis(operationTimeout))
                // Notice a silent member (a frozen process, a dead link) and move to another one.
                .keepaliveTime(Duration.ofSeconds(10))
                .keepaliveTimeout(Duration.ofSeconds(3));
        if (user != null) {
            builder.user(ByteSequence.from(user, StandardCharsets.UTF_8))
                    .password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        if (sslContext != null) {
            builder.sslContext(sslContext);
        }
        customizer.accept(builder);
        return builder.build();
    }

    private static <T> T requireNonNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException("etcd backend: " + name + " must not be null");
        }
        return value;
    }

    @Override
    public String toString() {
        return "EtcdLockBackendBuilder[" + (client != null ? "client" : String.join(",", endpoints)) + "]";
    }
}
