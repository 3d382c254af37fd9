package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the etcd lock backend ({@code mortise.lock.etcd.*}), used when no jetcd
 * {@code Client} bean is reused.
 */
@ConfigurationProperties("mortise.lock.etcd")
public class EtcdLockProperties {

    /**
     * Whether to configure the etcd backend when it is asked for (mortise.lock.backend=etcd,
     * these properties, a jetcd Client bean, or lock-etcd as the only backend module).
     */
    private boolean enabled = true;

    /**
     * etcd endpoints (http://host:port or https://host:port). Default http://127.0.0.1:2379 when no
     * jetcd Client bean is reused.
     */
    private List<String> endpoints = new ArrayList<>();

    /**
     * User name for etcd authentication.
     */
    private String user;

    /**
     * Password for etcd authentication.
     */
    private String password;

    /**
     * Key prefix under which lock keys live; defaults to the backend's (mortise/locks/).
     */
    private String namespace;

    /**
     * Longest a single etcd call may take before failing; defaults to the backend's (5s).
     */
    private Duration operationTimeout;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getEndpoints() {
        return endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }
}
