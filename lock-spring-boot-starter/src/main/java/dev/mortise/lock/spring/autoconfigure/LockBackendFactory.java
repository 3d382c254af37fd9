package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spi.LockBackend;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * Builds a backend of one type from properties, for backends declared by name:
 * {@code mortise.lock.backends.<name>.type=redis} with the type's settings under the same
 * prefix ({@code mortise.lock.backends.<name>.address=...}).
 */
interface LockBackendFactory {

    /** The type it builds: "redis", "etcd", "zookeeper", "jdbc". */
    String type();

    /**
     * @param binder binds the settings
     * @param prefix {@code mortise.lock.backends.<name>}
     */
    LockBackend create(Binder binder, String prefix);

    /** A factory of {@code type} that binds {@code settings} at the prefix. */
    static <P> LockBackendFactory of(String type, Class<P> settings, Creator<P> creator) {
        return new LockBackendFactory() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public LockBackend create(Binder binder, String prefix) {
                P properties = binder.bindOrCreate(prefix, settings);
                return creator.create(properties, prefix);
            }
        };
    }

    /** Builds from bound settings. */
    @FunctionalInterface
    interface Creator<P> {
        LockBackend create(P properties, String prefix);
    }
}
