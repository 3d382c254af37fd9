package dev.mortise.lock.integration.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Spring Integration lock registry, under {@code mortise.integration} (not
 * {@code mortise.lock}, whose names the starter checks against its own).
 */
@ConfigurationProperties("mortise.integration")
public class MortiseLockRegistryProperties {

    /** Whether to provide Spring Integration's LockRegistry from the application's Mortise LockClient. */
    private boolean enabled = true;

    /** A prefix put before every registry key to make its Mortise key; none by default. */
    private String keyPrefix = "";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix == null ? "" : keyPrefix;
    }
}
