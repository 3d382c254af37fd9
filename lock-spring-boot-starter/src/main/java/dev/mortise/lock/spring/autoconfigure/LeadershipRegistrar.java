package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.LockClients;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Map;

/**
 * Registers one {@link Leadership} bean per group under {@code mortise.lock.leadership}, named
 * {@code mortiseLeadership.<group>}; a bean of that name the application defines itself is left
 * alone. The properties are bound directly: this runs before any bean exists.
 */
final class LeadershipRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    static final String PREFIX = "mortise.lock.leadership";
    static final String BEAN_PREFIX = "mortiseLeadership.";

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        Map<String, LeadershipProperties> groups = Binder.get(environment)
                .bind(PREFIX, Bindable.mapOf(String.class, LeadershipProperties.class)).orElse(Map.of());
        BeanFactory beans = (BeanFactory) registry;
        groups.forEach((group, settings) -> {
            String name = BEAN_PREFIX + group;
            if (registry.containsBeanDefinition(name)) {
                return;
            }
            RootBeanDefinition definition = new RootBeanDefinition(Leadership.class, () -> new Leadership(group,
                    settings.getKey(), settings.getBackend(), settings.isEnabled(), beans.getBean(LockClients.class)));
            registry.registerBeanDefinition(name, definition);
        });
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }
}
