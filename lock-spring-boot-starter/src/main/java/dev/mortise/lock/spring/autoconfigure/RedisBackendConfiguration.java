package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.redis.RedisLockBackendBuilder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Redis backend (lock-redis), on the client {@code mortise.lock.redis.client} chooses (see
 * {@link RedisConnectionChoice}): the application's {@code RedissonClient} bean or Spring Data
 * Redis {@code LettuceConnectionFactory} when no {@code mortise.lock.redis} connection is set,
 * else a client of its own built from {@code mortise.lock.redis.*} (default
 * {@code redis://127.0.0.1:6379}) on Redisson or Lettuce. Needs lock-redis and either library.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisLockBackend.class)
@ConditionalOnLockBackend(value = "redis", clientType = "org.redisson.api.RedissonClient")
@EnableConfigurationProperties(RedisLockProperties.class)
class RedisBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedisLockBackend redisLockBackend(RedisLockProperties properties, ConfigurableListableBeanFactory beans) {
        return build(properties, beans, "mortise.lock.redis");
    }

    /**
     * Builds the backend from {@code properties} (bound at {@code prefix}), reusing a client bean
     * of {@code beans} as {@code mortise.lock.redis.client} says, or building its own when
     * {@code beans} is null (a backend declared by name).
     */
    static RedisLockBackend build(RedisLockProperties properties, ListableBeanFactory beans, String prefix) {
        try {
            // The context's class loader: what the application has, not what the starter was loaded with.
            ClassLoader classLoader = beans instanceof ConfigurableBeanFactory configurable
                    && configurable.getBeanClassLoader() != null ? configurable.getBeanClassLoader()
                    : RedisBackendConfiguration.class.getClassLoader();
            RedisConnectionChoice choice = RedisConnectionChoice.choose(properties, prefix, beans, classLoader);
            RedisLockBackendBuilder builder = RedisLockBackend.builder();
            choice.applyTo(builder);
            if (choice.shared() == null) {
                connect(builder, properties);
            }
            if (properties.getOperationTimeout() != null) {
                builder.operationTimeout(properties.getOperationTimeout());
            }
            if (properties.getConnectTimeout() != null) {
                builder.connectTimeout(properties.getConnectTimeout());
            }
            if (properties.getKeyPrefix() != null) {
                builder.keyPrefix(properties.getKeyPrefix());
            }
            builder.fencingTokens(properties.getFencingTokens());
            return builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException("Cannot configure the 'redis' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Check " + prefix + ".* (client; one of address, cluster-nodes, sentinel-master), define a "
                    + "RedissonClient or LettuceConnectionFactory bean, or set " + prefix + ".enabled=false.", e);
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
