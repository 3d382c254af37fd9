package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.internal.ReactorHandler;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import reactor.core.publisher.Mono;

/** With Reactor: {@code Mono}/{@code Flux} methods hold the lock until the publisher terminates. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Mono.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class LockReactorConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static ReactorHandler lockReactorHandler() {
        return new ReactorHandler();
    }
}
