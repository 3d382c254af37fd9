package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Import;

/**
 * The backends of the backend modules on the classpath (lock-redis, lock-etcd,
 * lock-zookeeper, lock-jdbc), each configured when asked for (see
 * {@link ConditionalOnLockBackend}): reusing the application's client bean, or building
 * one from {@code mortise.lock.<backend>.*}. Ordered after the auto-configurations that
 * create those client beans.
 */
@AutoConfiguration(before = MortiseLockAutoConfiguration.class, afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@Import({RedisBackendConfiguration.class, EtcdBackendConfiguration.class, ZookeeperBackendConfiguration.class,
        JdbcBackendConfiguration.class})
public final class MortiseLockBackendsAutoConfiguration {
}
