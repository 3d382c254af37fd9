package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.LeaderOnly;
import dev.mortise.lock.spring.Leaderships;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs a {@link LeaderOnly} method only while this instance leads its group; otherwise skips
 * it, logs at debug and returns the empty value of the method's return type. Thread-safe.
 */
public final class LeaderOnlyInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

    private final Supplier<Leaderships> leaderships;
    private final Map<Method, String> groups = new ConcurrentHashMap<>();

    public LeaderOnlyInterceptor(Supplier<Leaderships> leaderships) {
        this.leaderships = leaderships;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Class<?> target = invocation.getThis() == null ? method.getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        String group = groups.computeIfAbsent(method, m -> {
            LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(
                    AopUtils.getMostSpecificMethod(m, target), LeaderOnly.class);
            return annotation == null ? "" : annotation.value();
        });
        if (group.isEmpty() || leaderships.get().get(group).isLeader()) {
            return invocation.proceed();
        }
        log.debug("Skipped {}.{}: this instance does not lead group '{}'", target.getSimpleName(), method.getName(),
                group);
        return skipped(SuspendingMethods.adviceReturnType(method)); // a suspend method: an empty Mono (Flux)
    }

    /** The empty value of {@code type}. */
    static Object skipped(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type.isPrimitive() && type != void.class) {
            return type == long.class ? 0L : type == double.class ? 0d : type == float.class ? 0f
                    : type == short.class ? (short) 0 : type == byte.class ? (byte) 0 : (Object) 0;
        }
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return CompletableFuture.completedFuture(null);
        }
        if (type.getName().equals("reactor.core.publisher.Mono") || type.getName().equals("reactor.core.publisher.Flux")) {
            try {
                return type.getMethod("empty").invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot make an empty " + type.getName(), e);
            }
        }
        return SkipValues.forType(type);
    }
}
