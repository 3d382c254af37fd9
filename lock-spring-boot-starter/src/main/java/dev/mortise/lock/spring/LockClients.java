package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The configured lock clients by backend name, and which one is the default. Built by the
 * auto-configuration from every {@link dev.mortise.lock.spi.LockBackend} in the context;
 * {@link DistributedLock#backend()} names one of them.
 *
 * <p>Immutable and thread-safe. Owns its clients: {@link #close()} closes them all
 * (releasing what they still hold).
 */
public final class LockClients implements AutoCloseable {

    private final Map<String, LockClient> clients;
    private final String defaultName;

    /**
     * @param clients     the clients by name, in a stable order
     * @param defaultName the name of the default client, one of {@code clients}' keys
     * @throws IllegalArgumentException if {@code clients} is empty or lacks {@code defaultName}
     */
    public LockClients(Map<String, LockClient> clients, String defaultName) {
        if (clients == null || clients.isEmpty()) {
            throw new IllegalArgumentException("No lock backend is configured: add a backend module (lock-redis, "
                    + "lock-etcd, lock-zookeeper, lock-jdbc) or set mortise.lock.backend=local for in-process locks");
        }
        if (!clients.containsKey(defaultName)) {
            throw new IllegalArgumentException("Default lock backend '" + defaultName + "' is not configured; "
                    + "configured backends: " + clients.keySet() + ". Set mortise.lock.backend to one of them.");
        }
        this.clients = Collections.unmodifiableMap(new LinkedHashMap<>(clients));
        this.defaultName = defaultName;
    }

    /** The default client ({@code mortise.lock.backend}, or the only one). */
    public LockClient getDefault() {
        return clients.get(defaultName);
    }

    /** The name of the default client. */
    public String defaultName() {
        return defaultName;
    }

    /**
     * The client named {@code name}, or the default for {@code null} or empty.
     *
     * @throws IllegalArgumentException if no backend has that name
     */
    public LockClient get(String name) {
        if (name == null || name.isEmpty()) {
            return getDefault();
        }
        LockClient client = clients.get(name);
        if (client == null) {
            throw new IllegalArgumentException("Lock backend '" + name + "' is not configured; configured backends: "
                    + clients.keySet() + ". Add its module and settings (mortise.lock.backends." + name
                    + ".*) or use one of the configured names.");
        }
        return client;
    }

    /** Whether a backend named {@code name} is configured. */
    public boolean contains(String name) {
        return clients.containsKey(name);
    }

    /** The configured names, in configuration order. */
    public Set<String> names() {
        return clients.keySet();
    }

    /** All clients by name. */
    public Map<String, LockClient> asMap() {
        return clients;
    }

    @Override
    public void close() {
        for (LockClient client : clients.values()) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "LockClients" + clients.keySet() + "[default=" + defaultName + "]";
    }
}
