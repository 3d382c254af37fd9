package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.redis.RedisDriver;
import dev.mortise.lock.redis.RedisLockBackendBuilder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What the Redis backend connects through, from {@code mortise.lock.redis.client} and the
 * beans and libraries the application has: the application's {@code RedissonClient}, the
 * native client of its Spring Data Redis {@code LettuceConnectionFactory}, or a client of its
 * own on a driver. Redisson, Lettuce and Spring Data Redis types are touched only in the
 * nested holders, and only when their library is present, so each may be missing.
 *
 * @param driver the driver the backend talks through
 * @param shared the application's client (a RedissonClient, or a Lettuce RedisClient or
 *               RedisClusterClient) to reuse and never close, or null to build one
 * @param source what was chosen and why, for messages
 */
record RedisConnectionChoice(RedisDriver driver, Object shared, String source) {

    static final String REDISSON_CLIENT = "org.redisson.api.RedissonClient";
    static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";
    static final String LETTUCE_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    /**
     * Chooses per the rules of {@link RedisLockProperties.Client}.
     *
     * @param beans the application's beans to reuse, or null for a backend declared by name
     *              (which always builds its own client)
     * @throws IllegalStateException naming the dependency and the property, when the chosen
     *                               driver's library is missing
     */
    static RedisConnectionChoice choose(RedisLockProperties properties, String prefix, ListableBeanFactory beans,
                                        ClassLoader classLoader) {
        boolean own = beans == null || properties.getAddress() != null || !properties.getClusterNodes().isEmpty()
                || properties.getSentinelMaster() != null;
        boolean redisson = ClassUtils.isPresent(REDISSON_CLIENT, classLoader);
        boolean lettuce = ClassUtils.isPresent(LETTUCE_CLIENT, classLoader);
        boolean factories = lettuce && ClassUtils.isPresent(LETTUCE_FACTORY, classLoader);
        String property = prefix + ".client";
        switch (properties.getClient()) {
            case REDISSON -> {
                if (!redisson) {
                    throw new IllegalStateException(property + "=redisson needs org.redisson:redisson on the class "
                            + "path: add it, or set " + property + "=lettuce (io.lettuce:lettuce-core) or auto");
                }
                Object bean = own ? null : RedissonBeans.unique(beans);
                return new RedisConnectionChoice(RedisDriver.REDISSON, bean, bean != null
                        ? "the application's RedissonClient bean" : "its own Redisson client");
            }
            case LETTUCE -> {
                if (!lettuce) {
                    throw new IllegalStateException(property + "=lettuce needs io.lettuce:lettuce-core on the class "
                            + "path (spring-boot-starter-data-redis brings it): add it, or set " + property
                            + "=redisson (org.redisson:redisson) or auto");
                }
                Object bean = own || !factories ? null : LettuceFactories.nativeClient(beans);
                return new RedisConnectionChoice(RedisDriver.LETTUCE, bean, bean != null
                        ? "the native client of the application's LettuceConnectionFactory" : "its own Lettuce client");
            }
            default -> {
                if (!own) {
                    Object bean = redisson ? RedissonBeans.unique(beans) : null;
                    if (bean != null) {
                        return new RedisConnectionChoice(RedisDriver.REDISSON, bean,
                                "the application's RedissonClient bean");
                    }
                    bean = factories ? LettuceFactories.nativeClient(beans) : null;
                    if (bean != null) {
                        return new RedisConnectionChoice(RedisDriver.LETTUCE, bean,
                                "the native client of the application's LettuceConnectionFactory");
                    }
                }
                if (redisson) {
                    return new RedisConnectionChoice(RedisDriver.REDISSON, null, "its own Redisson client");
                }
                if (lettuce) {
                    return new RedisConnectionChoice(RedisDriver.LETTUCE, null, "its own Lettuce client");
                }
                throw new IllegalStateException("the 'redis' lock backend needs a Redis client library on the class "
                        + "path: add org.redisson:redisson or io.lettuce:lettuce-core (spring-boot-starter-data-redis "
                        + "brings it), or set " + prefix + ".enabled=false");
            }
        }
    }

    /** Hands the choice to {@code builder}: the shared client, or the driver of the client it builds. */
    void applyTo(RedisLockBackendBuilder builder) {
        if (shared == null) {
            builder.driver(driver);
        } else if (driver == RedisDriver.REDISSON) {
            RedissonBeans.use(builder, shared);
        } else {
            LettuceFactories.use(builder, shared);
        }
    }

    /** Redisson types, loaded only when Redisson is on the class path. */
    private static final class RedissonBeans {

        static Object unique(ListableBeanFactory beans) {
            return beans.getBeanProvider(org.redisson.api.RedissonClient.class).getIfUnique();
        }

        static void use(RedisLockBackendBuilder builder, Object client) {
            builder.client((org.redisson.api.RedissonClient) client);
        }
    }

    /** Lettuce and Spring Data Redis types, loaded only when both are on the class path. */
    private static final class LettuceFactories {

        /**
         * The native client of the unique LettuceConnectionFactory bean, started first if it is not
         * yet (it has no client before: Spring Data Redis creates it in start(), which
         * afterPropertiesSet calls unless early start-up is switched off); null without such a bean.
         */
        static Object nativeClient(ListableBeanFactory beans) {
            var factory = beans.getBeanProvider(
                    org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class).getIfUnique();
            if (factory == null) {
                return null;
            }
            if (!factory.isRunning()) {
                factory.start();
            }
            return factory.getRequiredNativeClient();
        }

        static void use(RedisLockBackendBuilder builder, Object client) {
            if (client instanceof io.lettuce.core.cluster.RedisClusterClient cluster) {
                builder.lettuce(cluster);
            } else {
                builder.lettuce((io.lettuce.core.RedisClient) client);
            }
        }
    }
}
