package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.internal.LeaseCommitGuardRegistrar;
import dev.mortise.lock.spring.internal.SpringTransactionBinding;
import dev.mortise.lock.spring.internal.TransactionBinding;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * With Spring transactions: a lease lost before a commit rolls the transaction back, both
 * for transactions begun inside a locked method (a listener on every transaction manager)
 * and for locks taken inside a running transaction (held until it completes).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(TransactionExecutionListener.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class LockTransactionConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaseCommitGuardRegistrar lockLeaseCommitGuardRegistrar() {
        return new LeaseCommitGuardRegistrar();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static TransactionBinding lockTransactionBinding() {
        return new SpringTransactionBinding();
    }
}
