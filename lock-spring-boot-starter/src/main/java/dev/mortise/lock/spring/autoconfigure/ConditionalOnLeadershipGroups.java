package dev.mortise.lock.spring.autoconfigure;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

/** Matches when at least one group is configured under {@code mortise.lock.leadership}. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(ConditionalOnLeadershipGroups.OnGroups.class)
@interface ConditionalOnLeadershipGroups {

    /** The condition. */
    final class OnGroups implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !Binder.get(context.getEnvironment()).bind(LeadershipRegistrar.PREFIX,
                    Bindable.mapOf(String.class, Object.class)).orElse(Map.of()).isEmpty();
        }
    }
}
