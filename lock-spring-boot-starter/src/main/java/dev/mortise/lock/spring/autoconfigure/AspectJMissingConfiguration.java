package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;

/**
 * {@code mortise.lock.mode=aspectj} without AspectJ on the classpath would leave every
 * annotation unapplied: fail start-up instead.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingClass("org.aspectj.lang.Aspects")
@ConditionalOnProperty(name = "mortise.lock.mode", havingValue = "aspectj")
class AspectJMissingConfiguration {

    AspectJMissingConfiguration() {
        throw new IllegalStateException("mortise.lock.mode=aspectj but AspectJ (org.aspectj:aspectjweaver) is not on "
                + "the classpath, so @DistributedLock would not be applied. Add aspectjweaver and weave "
                + "DistributedLockAspect, or remove mortise.lock.mode to use proxies.");
    }
}
