package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.OnLost;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.CompletionStageHandler;
import dev.mortise.lock.spring.internal.LeaseReleaser;
import dev.mortise.lock.spring.internal.FenceCheck;
import dev.mortise.lock.spring.internal.LockAnnotationValidator;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.LockKeyEvaluator;
import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperationSource;
import dev.mortise.lock.spring.internal.ReturnTypeHandler;
import dev.mortise.lock.spring.internal.TransactionBinding;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.Map;

/**
 * Auto-configuration of Mortise locks: one {@link LockClient} per {@link LockBackend} bean
 * ({@link LockClients}, the default one also as a {@code LockClient} bean), the in-process
 * backend on request, and the {@code @DistributedLock} engine applied through proxies or
 * AspectJ.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MortiseLockProperties.class)
@Import({LocalBackendConfiguration.class, LockProxyConfiguration.class, LockAspectJConfiguration.class,
        AspectJMissingConfiguration.class,
        LockTransactionConfiguration.class, LockReactorConfiguration.class})
public final class MortiseLockAutoConfiguration {

    /** Checks mortise.lock.* before any bean exists, so a misspelled property never builds a backend. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static MortiseLockPropertyCheck mortiseLockPropertyCheck() {
        return new MortiseLockPropertyCheck();
    }

    @Bean
    @ConditionalOnMissingBean
    LockClients lockClients(ConfigurableListableBeanFactory beanFactory, MortiseLockProperties properties,
                            ObjectProvider<LockListener> listeners,
                            ObjectProvider<LockClientBuilderCustomizer> customizers,
                            ObjectProvider<LockBackendFactory> factories, Environment environment) {
        Map<String, LockBackend> backends = beanFactory.getBeansOfType(LockBackend.class);
        // The clients release their holds when closed, so the backends must still be open then.
        backends.keySet().forEach(name -> beanFactory.registerDependentBean(name, "lockClients"));
        // Holds under holdAtLeast are left on the server (LeaseReleaser.close) before the clients
        // close and would release them: the releaser is destroyed first.
        for (String releaser : beanFactory.getBeanNamesForType(LeaseReleaser.class, false, false)) {
            beanFactory.registerDependentBean("lockClients", releaser);
        }
        return new LockClientsFactory(properties, listeners.orderedStream().toList(),
                customizers.orderedStream().toList(), factories.orderedStream().toList(), Binder.get(environment))
                .create(backends);
    }

    /** The default client, for code that locks through the API; {@link LockClients} closes it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    LockClient lockClient(LockClients lockClients) {
        return lockClients.getDefault();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockOperationSource lockOperationSource(ConfigurableBeanFactory beanFactory,
                                                   Environment environment) {
        // Bound directly, not through MortiseLockProperties: this bean serves bean post-processors.
        Duration wait = Binder.get(environment).bind("mortise.lock.wait-for", Duration.class)
                .orElse(new MortiseLockProperties().getWaitFor());
        OnLost onLost = Binder.get(environment).bind("mortise.lock.on-lost", OnLost.class).orElse(OnLost.NOTIFY);
        return new LockOperationSource(new EmbeddedValueResolver(beanFactory), wait, onLost);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockKeyEvaluator lockKeyEvaluator(ConfigurableBeanFactory beanFactory) {
        return new LockKeyEvaluator(beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaseReleaser lockLeaseReleaser() {
        return new LeaseReleaser();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static CompletionStageHandler lockCompletionStageHandler() {
        return new CompletionStageHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockInvoker lockInvoker(LockOperationSource operations, LockKeyEvaluator keys,
                                   ObjectProvider<LockClients> clients, ObjectProvider<LockObserver> observer,
                                   ObjectProvider<ReturnTypeHandler> handlers,
                                   ObjectProvider<TransactionBinding> transactionBinding, LeaseReleaser releaser,
                                   ObjectProvider<FenceCheck> fenceChecks, Environment environment) {
        LockInvoker invoker = new LockInvoker(operations, keys, clients::getObject,
                () -> LockObserver.composite(observer.orderedStream().toList()),
                handlers.orderedStream().toList(), transactionBinding.getIfAvailable(), releaser);
        // With proxies the FenceAdvisor checks inside @Transactional; woven, no advice runs in between.
        invoker.useFences(fenceChecks::getIfAvailable, woven(environment));
        return invoker;
    }

    private static boolean woven(Environment environment) {
        return Binder.get(environment).bind("mortise.lock.mode", MortiseLockProperties.Mode.class)
                .orElse(MortiseLockProperties.Mode.PROXY) == MortiseLockProperties.Mode.ASPECTJ;
    }

    @Bean
    @ConditionalOnMissingBean
    static LockAnnotationValidator lockAnnotationValidator(ObjectProvider<LockOperationSource> operations,
                                                           ObjectProvider<LockKeyEvaluator> keys,
                                                           ObjectProvider<LockClients> clients,
                                                           ObjectProvider<FenceCheck> fenceChecks,
                                                           Environment environment) {
        LockAnnotationValidator validator = new LockAnnotationValidator(operations, keys, clients, woven(environment));
        validator.setFenceChecks(fenceChecks);
        return validator;
    }
}
