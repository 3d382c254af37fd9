package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.LeaderOnly;
import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.LeaderOnlyInterceptor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * Leader election ({@code mortise.lock.leadership.<group>.*}): one {@link Leadership} bean per
 * configured group, started and stopped with the context; {@link Leaderships}, the registry of
 * them; and {@link LeaderOnly} applied through Spring AOP proxies, outside
 * {@code @DistributedLock} and {@code @Transactional}.
 */
@AutoConfiguration(after = MortiseLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@ConditionalOnClass(LockClients.class)
@ConditionalOnBean(LockClients.class)
@Import(LockProxyRegistrar.class)
public final class MortiseLeadershipAutoConfiguration {

    /** Order of the {@code @LeaderOnly} advice: before (outside) the lock and transaction advice. */
    public static final int LEADER_ONLY_ORDER = MortiseLockProperties.DEFAULT_ORDER - 100;

    @Bean
    @ConditionalOnMissingBean
    static LeadershipRegistrar leadershipRegistrar() {
        return new LeadershipRegistrar();
    }

    @Bean
    @ConditionalOnMissingBean
    Leaderships leaderships(ObjectProvider<Leadership> groups) {
        return new Leaderships(groups.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyInterceptor leaderOnlyInterceptor(ObjectProvider<Leaderships> leaderships) {
        return new LeaderOnlyInterceptor(leaderships::getObject);
    }

    @Bean
    @ConditionalOnMissingBean(name = "leaderOnlyAdvisor")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DefaultPointcutAdvisor leaderOnlyAdvisor(LeaderOnlyInterceptor interceptor) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(LeaderOnly.class), interceptor);
        advisor.setOrder(LEADER_ONLY_ORDER);
        return advisor;
    }
}
