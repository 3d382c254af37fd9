package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockClientBuilder;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.SpringTerms;
import org.springframework.boot.context.properties.bind.Binder;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names the backend beans, picks the default and builds one client per backend. A
 * backend is named by {@link LockBackend#name()}, or by its bean name when several
 * backends share that name (two Redis deployments, say).
 */
final class LockClientsFactory {

    private final MortiseLockProperties properties;
    private final List<LockListener> listeners;
    private final List<LockClientBuilderCustomizer> customizers;
    private final List<LockBackendFactory> factories;
    private final Binder binder;

    LockClientsFactory(MortiseLockProperties properties, List<LockListener> listeners,
                       List<LockClientBuilderCustomizer> customizers, List<LockBackendFactory> factories,
                       Binder binder) {
        this.properties = properties;
        this.listeners = listeners;
        this.customizers = customizers;
        this.factories = factories;
        this.binder = binder;
    }

    LockClients create(Map<String, LockBackend> backendsByBeanName) {
        Map<String, LockBackend> named = name(backendsByBeanName);
        Map<String, LockClient> clients = new LinkedHashMap<>();
        try {
            named.putAll(declared(named));
            String defaultName = migrating(named) ? MIGRATION : defaultName(named);
            checkBackendSettings(named);
            DeadlockDetection detection = properties.getDeadlockDetection().toSetting();
            named.forEach((name, backend) -> clients.put(name, build(name, backend, detection)));
            return new LockClients(clients, defaultName);
        } catch (RuntimeException e) {
            clients.values().forEach(LockClient::close);
            throw e;
        }
    }

    /** The name of the default client while mortise.lock.migration.from/to are set. */
    static final String MIGRATION = "migration";

    /**
     * With mortise.lock.migration.from and .to set, adds the migration backend (every hold in
     * {@code from}, then in {@code to}) as {@value #MIGRATION}, the default client.
     */
    private boolean migrating(Map<String, LockBackend> named) {
        MortiseLockProperties.Migration migration = properties.getMigration();
        if (!migration.isConfigured()) {
            return false;
        }
        String from = migration.getFrom();
        String to = migration.getTo();
        if (from == null || from.isBlank() || to == null || to.isBlank() || from.equals(to)) {
            throw new IllegalStateException("mortise.lock.migration.from=" + from + " and mortise.lock.migration.to="
                    + to + ": a migration needs both, naming two different backends (for example from=redis, "
                    + "to=etcd). Set both, or remove both once every instance locks the new store alone.");
        }
        for (String side : new String[] {from, to}) {
            if (!named.containsKey(side)) {
                throw new IllegalStateException("mortise.lock.migration names backend '" + side + "', which is not "
                        + "configured; configured: " + named.keySet() + ". Put its module on the classpath with its "
                        + "settings (mortise.lock." + side + ".*), or fix mortise.lock.migration.from/to.");
            }
        }
        named.put(MIGRATION, new dev.mortise.lock.migration.MigratingLockBackend(named.get(from), named.get(to)));
        return true;
    }

    /** Backends declared by name and type under mortise.lock.backends. */
    private Map<String, LockBackend> declared(Map<String, LockBackend> existing) {
        Map<String, LockBackend> declared = new LinkedHashMap<>();
        properties.getBackends().forEach((name, settings) -> {
            String type = settings.getType();
            if (type == null || type.isBlank()) {
                return;
            }
            String prefix = "mortise.lock.backends." + name;
            if (existing.containsKey(name)) {
                throw new IllegalStateException(prefix + ".type=" + type + " declares a backend named '" + name
                        + "', but one of that name is already configured " + existing.keySet() + ". Pick another name.");
            }
            declared.put(name, create(type, prefix));
        });
        return declared;
    }

    private LockBackend create(String type, String prefix) {
        if (type.equals("local")) {
            return LocalLockBackend.create();
        }
        for (LockBackendFactory factory : factories) {
            if (factory.type().equals(type)) {
                return factory.create(binder, prefix);
            }
        }
        throw new IllegalStateException(prefix + ".type=" + type + " but no such backend module is on the classpath; "
                + "add lock-" + type + " (types: redis, etcd, zookeeper, jdbc, local).");
    }

    private static Map<String, LockBackend> name(Map<String, LockBackend> byBeanName) {
        Map<String, Integer> counts = new HashMap<>();
        byBeanName.values().forEach(backend -> counts.merge(backend.name(), 1, Integer::sum));
        Map<String, LockBackend> named = new LinkedHashMap<>();
        byBeanName.forEach((beanName, backend) ->
                named.put(counts.get(backend.name()) == 1 ? backend.name() : beanName, backend));
        return named;
    }

    private String defaultName(Map<String, LockBackend> named) {
        String wanted = properties.getBackend();
        if (wanted != null && !wanted.isBlank()) {
            if (!named.containsKey(wanted) && !MortiseLockPropertyCheck.builtInBackends().contains(wanted)) {
                throw new IllegalStateException("mortise.lock.backend=" + wanted + " is not a backend name; valid: "
                        + String.join(", ", MortiseLockPropertyCheck.builtInBackends())
                        + (named.isEmpty() ? "" : ", or a configured name " + named.keySet())
                        + " (names declared with mortise.lock.backends.<name>.type are valid too). Fix "
                        + "mortise.lock.backend.");
            }
            if (!named.containsKey(wanted)) {
                throw new IllegalStateException("mortise.lock.backend=" + wanted + " but no backend of that name is "
                        + "configured; configured: " + named.keySet() + ". Put its module (lock-" + wanted + ") on the "
                        + "classpath with its settings (mortise.lock." + wanted + ".*, and not mortise.lock." + wanted
                        + ".enabled=false), or set mortise.lock.backend to a configured name.");
            }
            return wanted;
        }
        if (named.isEmpty()) {
            throw new IllegalStateException("No lock backend is configured: set mortise.lock.backend to redis, "
                    + "etcd, zookeeper or jdbc with that module on the classpath (a DataSource or client bean alone "
                    + "chooses nothing), define a LockBackend bean, or set mortise.lock.backend=local for in-process "
                    + "locks (tests, single-instance services).");
        }
        if (named.size() > 1) {
            throw new IllegalStateException("Several lock backends are configured " + named.keySet()
                    + "; set mortise.lock.backend to the one @DistributedLock uses by default (others are chosen "
                    + "per annotation with backend = \"...\").");
        }
        return named.keySet().iterator().next();
    }

    private void checkBackendSettings(Map<String, LockBackend> named) {
        for (String name : properties.getBackends().keySet()) {
            if (!named.containsKey(name)) {
                throw new IllegalStateException("mortise.lock.backends." + name + ".* is set but no backend named '"
                        + name + "' is configured; configured: " + named.keySet() + ". Fix the name or add the "
                        + "backend.");
            }
        }
    }

    /** The client of {@code backend}; a customizer may still change {@code detection}, set first. */
    private LockClient build(String name, LockBackend backend, DeadlockDetection detection) {
        MortiseLockProperties.Backend settings = properties.getBackends().get(name);
        LockClientBuilder builder = LockClient.builder(backend);
        try {
            builder.defaultLease(settings != null && settings.getDefaultLease() != null ? settings.getDefaultLease()
                    : properties.getDefaultLease());
            builder.maxKeyBytes(settings != null && settings.getMaxKeyBytes() != null ? settings.getMaxKeyBytes()
                    : properties.getMaxKeyBytes());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Invalid settings for lock backend '" + name + "': " + e.getMessage()
                    + ". Fix mortise.lock.default-lease / max-key-bytes (or mortise.lock.backends." + name
                    + ".*).", e);
        }
        builder.deadlockDetection(detection);
        listeners.forEach(builder::listener);
        customizers.forEach(customizer -> customizer.customize(name, builder));
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // The default lease is checked against the backend's floor here (no server is asked).
            String property = settings != null && settings.getDefaultLease() != null
                    ? "mortise.lock.backends." + name + ".default-lease" : "mortise.lock.default-lease";
            throw new IllegalStateException("Invalid settings for lock backend '" + name + "': "
                    + SpringTerms.translate(String.valueOf(e.getMessage()).replace("LockClientBuilder.defaultLease",
                    property)), e);
        }
    }
}
