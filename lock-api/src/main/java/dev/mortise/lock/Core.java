package dev.mortise.lock;

import java.util.ServiceLoader;

/**
 * The one {@link CoreProvider}, found once, from lock-api's own class loader (the provider is in
 * the same jar, whatever the thread's context class loader is).
 */
final class Core {

    static final CoreProvider PROVIDER = ServiceLoader.load(CoreProvider.class, CoreProvider.class.getClassLoader())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("lock-api's core is missing: no "
                    + "META-INF/services/dev.mortise.lock.CoreProvider on the class path of "
                    + CoreProvider.class.getClassLoader() + ". Use the lock-api jar as published (a repackaging "
                    + "that drops META-INF/services breaks it)."));

    private Core() {
    }
}
