package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import javax.sql.DataSource;

/**
 * The backends of the backend modules on the classpath (lock-redis, lock-etcd,
 * lock-zookeeper, lock-jdbc), each configured when asked for (see
 * {@link ConditionalOnLockBackend}): reusing the application's client bean, or building
 * one from {@code mortise.lock.<backend>.*}. Also the factories that build further backends
 * declared by name ({@code mortise.lock.backends.<name>.type}). Ordered after the
 * auto-configurations that create the client beans.
 */
@AutoConfiguration(before = MortiseLockAutoConfiguration.class, afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@Import({RedisBackendConfiguration.class, EtcdBackendConfiguration.class, ZookeeperBackendConfiguration.class,
        JdbcBackendConfiguration.class})
public final class MortiseLockBackendsAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisLockBackend.class)
    static class RedisFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "redisLockBackendFactory")
        LockBackendFactory redisLockBackendFactory() {
            return LockBackendFactory.of("redis", RedisLockProperties.class,
                    (properties, prefix) -> RedisBackendConfiguration.build(properties, null, prefix));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({EtcdLockBackend.class, Client.class})
    static class EtcdFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "etcdLockBackendFactory")
        LockBackendFactory etcdLockBackendFactory() {
            return LockBackendFactory.of("etcd", EtcdLockProperties.class,
                    (properties, prefix) -> EtcdBackendConfiguration.build(properties, null, prefix));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ZookeeperLockBackend.class, CuratorFramework.class})
    static class ZookeeperFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "zookeeperLockBackendFactory")
        LockBackendFactory zookeeperLockBackendFactory() {
            return LockBackendFactory.of("zookeeper", ZookeeperLockProperties.class,
                    (properties, prefix) -> ZookeeperBackendConfiguration.build(properties, null, prefix));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcLockBackend.class)
    static class JdbcFactoryConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "jdbcLockBackendFactory")
        LockBackendFactory jdbcLockBackendFactory(ObjectProvider<DataSource> dataSources) {
            return LockBackendFactory.of("jdbc", JdbcLockProperties.class,
                    (properties, prefix) -> JdbcBackendConfiguration.build(properties, dataSources, prefix));
        }
    }
}
