package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.LockClientBuilder;

/**
 * Customizes the {@link LockClientBuilder} of each auto-configured backend before its
 * client is built (listeners, clock drift, ...). Beans of this type are applied in order.
 */
@FunctionalInterface
public interface LockClientBuilderCustomizer {

    /**
     * @param backendName the name the backend is configured under
     * @param builder     its builder, with the mortise.lock.* settings applied
     */
    void customize(String backendName, LockClientBuilder builder);
}
