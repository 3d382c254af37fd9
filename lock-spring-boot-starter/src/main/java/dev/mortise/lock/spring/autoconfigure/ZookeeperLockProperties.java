package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Settings of the ZooKeeper lock backend ({@code mortise.lock.zookeeper.*}), used when no
 * {@code CuratorFramework} bean is reused.
 */
@ConfigurationProperties("mortise.lock.zookeeper")
public class ZookeeperLockProperties {

    /**
     * Whether to configure the ZooKeeper backend when it is asked for (mortise.lock.backend=zookeeper,
     * these properties, a CuratorFramework bean, or lock-zookeeper as the only backend module).
     */
    private boolean enabled = true;

    /**
     * ZooKeeper connect string: host:port[,host:port...][/chroot]. Default 127.0.0.1:2181 when no
     * CuratorFramework bean is reused.
     */
    private String connectString;

    /**
     * Parent node of lock nodes; defaults to the backend's (/mortise/locks).
     */
    private String rootPath;

    /**
     * ZooKeeper session timeout, the lease of every hold; defaults to the backend's (30s).
     */
    private Duration sessionTimeout;

    /**
     * How long to wait for the first connection; defaults to the backend's (10s).
     */
    private Duration connectionTimeout;

    /**
     * Longest a single ZooKeeper call may take before failing; defaults to the backend's (10s).
     */
    private Duration operationTimeout;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getConnectString() {
        return connectString;
    }

    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    public String getRootPath() {
        return rootPath;
    }

    public void setRootPath(String rootPath) {
        this.rootPath = rootPath;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }
}
