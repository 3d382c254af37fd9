package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackendBuilder;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The ZooKeeper backend (lock-zookeeper): over the application's {@link CuratorFramework}
 * bean if it has one and no {@code mortise.lock.zookeeper.connect-string} is set, else over
 * a client of its own (default {@code 127.0.0.1:2181}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ZookeeperLockBackend.class, CuratorFramework.class})
@ConditionalOnLockBackend(value = "zookeeper", clientType = "org.apache.curator.framework.CuratorFramework")
@EnableConfigurationProperties(ZookeeperLockProperties.class)
class ZookeeperBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ZookeeperLockBackend zookeeperLockBackend(ZookeeperLockProperties properties,
                                              ObjectProvider<CuratorFramework> clients) {
        CuratorFramework shared = properties.getConnectString() == null ? clients.getIfUnique() : null;
        return build(properties, shared, "mortise.lock.zookeeper");
    }

    /** Builds the backend from {@code properties} (bound at {@code prefix}), over {@code shared} if not null. */
    static ZookeeperLockBackend build(ZookeeperLockProperties properties, CuratorFramework shared, String prefix) {
        try {
            ZookeeperLockBackendBuilder builder = ZookeeperLockBackend.builder();
            if (shared != null) {
                builder.client(shared);
            } else {
                builder.connectString(properties.getConnectString() != null ? properties.getConnectString()
                        : "127.0.0.1:2181");
                if (properties.getSessionTimeout() != null) {
                    builder.sessionTimeout(properties.getSessionTimeout());
                }
                if (properties.getConnectionTimeout() != null) {
                    builder.connectionTimeout(properties.getConnectionTimeout());
                }
            }
            if (properties.getRootPath() != null) {
                builder.rootPath(properties.getRootPath());
            }
            if (properties.getOperationTimeout() != null) {
                builder.operationTimeout(properties.getOperationTimeout());
            }
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException("Cannot configure the 'zookeeper' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Check " + prefix + ".*, define a CuratorFramework bean, or set "
                    + "mortise.lock.zookeeper.enabled=false.", e);
        }
    }
}
