package dev.mortise.lock.spring.internal;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;

/** Adds the {@link LeaseCommitGuard} to every transaction manager that takes listeners. */
public final class LeaseCommitGuardRegistrar implements BeanPostProcessor {

    private final LeaseCommitGuard guard = new LeaseCommitGuard();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager
                && !manager.getTransactionExecutionListeners().contains(guard)) {
            manager.addListener(guard);
        }
        return bean;
    }
}
