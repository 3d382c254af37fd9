package dev.mortise.lock.tck;

import dev.mortise.lock.spi.LockBackend;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What a backend under test declares ({@link LockBackend#supportsSharedMode()},
 * {@link LockBackend#supportsPermits()}), asked of a fresh backend once per test class and
 * remembered, for the suites whose cases depend on it. Thread-safe.
 */
enum BackendCapabilities {

    SHARED_MODE("supportsSharedMode()", LockBackend::supportsSharedMode),
    PERMITS("supportsPermits()", LockBackend::supportsPermits);

    private final String what;
    private final Predicate<LockBackend> capability;
    private final Map<Class<?>, Boolean> answers = new ConcurrentHashMap<>();

    BackendCapabilities(String what, Predicate<LockBackend> capability) {
        this.what = what;
        this.capability = capability;
    }

    /** The answer for the test class {@code test}, asking a backend from {@code backends} the first time. */
    boolean ask(Class<?> test, Callable<LockBackend> backends) {
        return answers.computeIfAbsent(test, c -> {
            try (LockBackend probe = backends.call()) {
                return capability.test(probe);
            } catch (Exception e) {
                throw new IllegalStateException("Could not create a backend to ask " + what, e);
            }
        });
    }
}
