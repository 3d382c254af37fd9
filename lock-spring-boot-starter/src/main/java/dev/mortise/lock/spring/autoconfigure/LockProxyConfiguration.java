package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.internal.LockAdvisor;
import dev.mortise.lock.spring.internal.LockInterceptor;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.LockOperationSource;
import dev.mortise.lock.spring.internal.LockPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Applies {@code @DistributedLock} through Spring AOP proxies (the default mode): an
 * advisor, and an auto-proxy creator if the application has none.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "mortise.lock.mode", havingValue = "proxy", matchIfMissing = true)
@Import(LockProxyRegistrar.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class LockProxyConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockInterceptor lockInterceptor(LockInvoker invoker) {
        return new LockInterceptor(invoker);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockAdvisor lockAdvisor(LockOperationSource operations, LockInterceptor interceptor,
                                   Environment environment) {
        // Bound directly: advisors are created while bean post-processors are still being set up.
        int order = Binder.get(environment).bind("mortise.lock.order", Integer.class)
                .orElse(MortiseLockProperties.DEFAULT_ORDER);
        return new LockAdvisor(new LockPointcut(operations), interceptor, order);
    }
}
