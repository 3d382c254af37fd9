package dev.mortise.lock.spring.autoconfigure;

/**
 * Leader election of one group ({@code mortise.lock.leadership.<group>.*}): this instance is a
 * candidate from start-up, and {@code @LeaderOnly("<group>")} methods run only while it leads.
 */
public class LeadershipProperties {

    /**
     * Whether this instance contends for the group's leadership. Off: it never leads, and its
     * @LeaderOnly methods of the group are always skipped.
     */
    private boolean enabled = true;

    /**
     * Lock key of the group's leadership; defaults to "leader:<group>". Every instance of the
     * group must use the same key and backend.
     */
    private String key;

    /**
     * Backend the group elects on ("redis", "etcd", "zookeeper", "jdbc", "local" or a name under
     * mortise.lock.backends); defaults to the default backend.
     */
    private String backend;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }
}
