package dev.mortise.lock.spring.autoconfigure;

import org.springframework.context.annotation.Conditional;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Matches when the application asks for lock backend {@link #value()}: it is
 * {@code mortise.lock.backend}, or some {@code mortise.lock.<name>.*} or
 * {@code mortise.lock.backends.<name>.*} property is set, or its module is the only backend
 * module on the classpath and {@code mortise.lock.backend} is not set — and
 * {@code mortise.lock.<name>.enabled} is not {@code false}. A bean of {@link #clientType()}
 * is reused when the backend is built, but never chooses it. Put it on a configuration
 * already guarded by {@code @ConditionalOnClass} for the module.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLockBackendCondition.class)
@interface ConditionalOnLockBackend {

    /** The backend name: "redis", "etcd", "zookeeper", "jdbc". */
    String value();

    /** The client type whose bean, if present, is reused once the backend is chosen (a RedissonClient, ...). */
    String clientType();
}
