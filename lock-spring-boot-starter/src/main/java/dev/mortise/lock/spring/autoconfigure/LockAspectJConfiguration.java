package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.aspectj.DistributedLockAspect;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.WovenInvoker;
import org.aspectj.lang.Aspects;
import org.aspectj.lang.NoAspectBoundException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code mortise.lock.mode=aspectj}: no proxies; the engine is handed to the
 * {@link DistributedLockAspect} instance that AspectJ weaving created. Fails start-up if
 * the aspect was not woven.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Aspects.class)
@ConditionalOnProperty(name = "mortise.lock.mode", havingValue = "aspectj")
class LockAspectJConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "lockAspectJWiring")
    SmartInitializingSingleton lockAspectJWiring(LockInvoker invoker) {
        return () -> {
            try {
                // Only to fail start-up if the aspect was not woven: the aspect reads its engine from WovenInvoker.
                Aspects.aspectOf(DistributedLockAspect.class);
            } catch (NoAspectBoundException e) {
                throw new IllegalStateException("mortise.lock.mode=aspectj but DistributedLockAspect is not woven: "
                        + "add lock-spring-boot-starter as an aspect library of the aspectj-maven-plugin, or run "
                        + "with -javaagent:aspectjweaver.jar and list dev.mortise.lock.spring.aspectj."
                        + "DistributedLockAspect in META-INF/aop.xml. Or remove mortise.lock.mode to use proxies.", e);
            }
            WovenInvoker.use(invoker);
        };
    }
}
