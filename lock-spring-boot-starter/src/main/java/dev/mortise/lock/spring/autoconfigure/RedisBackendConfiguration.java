package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.redis.RedisLockBackendBuilder;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Redis backend (lock-redis): over the application's {@link RedissonClient} bean if it
 * has one and no {@code mortise.lock.redis} connection is set, else over a client of its
 * own built from {@code mortise.lock.redis.*} (default {@code redis://127.0.0.1:6379}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({RedisLockBackend.class, RedissonClient.class})
@ConditionalOnLockBackend(value = "redis", clientType = "org.redisson.api.RedissonClient")
@EnableConfigurationProperties(RedisLockProperties.class)
class RedisBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedisLockBackend redisLockBackend(RedisLockProperties properties, ObjectProvider<RedissonClient> clients) {
        boolean ownConnection = properties.getAddress() != null || !properties.getClusterNodes().isEmpty()
                || properties.getSentinelMaster() != null;
        RedissonClient shared = ownConnection ? null : clients.getIfUnique();
        return build(properties, shared, "mortise.lock.redis");
    }

    /** Builds the backend from {@code properties} (bound at {@code prefix}), over {@code shared} if not null. */
    static RedisLockBackend build(RedisLockProperties properties, RedissonClient shared, String prefix) {
        try {
            RedisLockBackendBuilder builder = RedisLockBackend.builder();
            if (shared != null) {
                builder.client(shared);
            } else {
                connect(builder, properties);
            }
            if (properties.getOperationTimeout() != null) {
                builder.operationTimeout(properties.getOperationTimeout());
            }
            if (properties.getKeyPrefix() != null) {
                builder.keyPrefix(properties.getKeyPrefix());
            }
            builder.fencingTokens(properties.getFencingTokens());
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException("Cannot configure the 'redis' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Check " + prefix + ".* (one of address, cluster-nodes, sentinel-master), define a "
                    + "RedissonClient bean, or set mortise.lock.redis.enabled=false.", e);
        }
    }

    private static void connect(RedisLockBackendBuilder builder, RedisLockProperties properties) {
        if (!properties.getClusterNodes().isEmpty()) {
            builder.clusterNodes(properties.getClusterNodes().toArray(String[]::new));
        }
        if (properties.getSentinelMaster() != null) {
            builder.sentinel(properties.getSentinelMaster(), properties.getSentinelNodes().toArray(String[]::new));
        }
        if (properties.getAddress() != null
                || (properties.getClusterNodes().isEmpty() && properties.getSentinelMaster() == null)) {
            builder.address(properties.getAddress() != null ? properties.getAddress() : "redis://127.0.0.1:6379");
        }
        if (properties.getPassword() != null) {
            builder.credentials(properties.getUsername(), properties.getPassword());
        }
    }
}
