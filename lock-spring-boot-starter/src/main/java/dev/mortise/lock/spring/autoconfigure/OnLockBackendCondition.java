package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

import java.util.Map;

/** The condition behind {@link ConditionalOnLockBackend}. */
class OnLockBackendCondition extends SpringBootCondition implements ConfigurationCondition {

    /** The backend modules, by backend name: their backend class. */
    private static final Map<String, String> MODULES = Map.of(
            "redis", "dev.mortise.lock.redis.RedisLockBackend",
            "etcd", "dev.mortise.lock.etcd.EtcdLockBackend",
            "zookeeper", "dev.mortise.lock.zookeeper.ZookeeperLockBackend",
            "jdbc", "dev.mortise.lock.jdbc.JdbcLockBackend");

    /** Evaluated once bean definitions are registered, so client beans can be seen (as OnBeanCondition). */
    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockBackend.class.getName());
        String name = (String) attributes.get("value");
        ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLockBackend.class, name);
        Binder binder = Binder.get(context.getEnvironment());
        String prefix = "mortise.lock." + name;
        if (!binder.bind(prefix + ".enabled", Boolean.class).orElse(true)) {
            return ConditionOutcome.noMatch(message.because(prefix + ".enabled is false"));
        }
        String chosen = binder.bind("mortise.lock.backend", String.class).orElse(null);
        if (name.equals(chosen)) {
            return ConditionOutcome.match(message.because("mortise.lock.backend=" + name));
        }
        for (String side : new String[] {"from", "to"}) {
            if (name.equals(binder.bind("mortise.lock.migration." + side, String.class).orElse(null))) {
                return ConditionOutcome.match(message.because("mortise.lock.migration." + side + "=" + name));
            }
        }
        if (binder.bind(prefix, Bindable.mapOf(String.class, Object.class)).isBound()) {
            return ConditionOutcome.match(message.because(prefix + ".* is set"));
        }
        String named = "mortise.lock.backends." + name;
        if (binder.bind(named, Bindable.mapOf(String.class, Object.class)).isBound()) {
            return ConditionOutcome.match(message.because(named + ".* is set"));
        }
        // A client bean (a DataSource, a RedissonClient) is reused once the backend is chosen, but never
        // chooses it: every Spring Boot application with a database has a DataSource.
        ClassLoader classLoader = context.getClassLoader();
        long modules = MODULES.values().stream().filter(type -> ClassUtils.isPresent(type, classLoader)).count();
        // Only a default: an explicit mortise.lock.backend=local (tests) must not start a client for it.
        if (chosen == null && modules == 1 && ClassUtils.isPresent(MODULES.get(name), classLoader)) {
            return ConditionOutcome.match(message.because("it is the only backend module on the classpath"));
        }
        return ConditionOutcome.noMatch(message.because("not asked for: set mortise.lock.backend=" + name + ", or "
                + prefix + ".* or " + named + ".* properties"));
    }
}
