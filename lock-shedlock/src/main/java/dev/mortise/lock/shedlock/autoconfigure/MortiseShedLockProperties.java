package dev.mortise.lock.shedlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the ShedLock provider, under {@code mortise.shedlock} (not {@code mortise.lock},
 * whose names the starter checks against its own).
 */
@ConfigurationProperties("mortise.shedlock")
public class MortiseShedLockProperties {

    /** Whether to provide ShedLock's LockProvider from the application's Mortise LockClient. */
    private boolean enabled = true;

    /** A prefix put before every ShedLock lock name to make its Mortise key; none by default. */
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
