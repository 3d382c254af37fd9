package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.LockClients;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks every {@code @DistributedLock} of every bean when the bean is created: durations,
 * policies, the key's SpEL syntax, and (once all singletons exist) that the named backend
 * is configured. A mistake fails start-up with the method and the fix, not the first call.
 */
public final class LockAnnotationValidator implements BeanPostProcessor, SmartInitializingSingleton {

    private final ObjectProvider<LockOperationSource> operations;
    private final ObjectProvider<LockKeyEvaluator> keys;
    private final ObjectProvider<LockClients> clients;
    private final Map<Class<?>, Boolean> checked = new ConcurrentHashMap<>();
    private final Map<String, String> backendsInUse = new ConcurrentHashMap<>();
    private final Map<String, LockOperation> fencedMethods = new ConcurrentHashMap<>();
    private volatile ObjectProvider<FenceCheck> fenceChecks;
    private final boolean woven;
    private volatile boolean started;

    /**
     * @param woven whether AspectJ weaving applies the annotation ({@code mortise.lock.mode=aspectj}),
     *              which reaches private, final and static methods that proxies cannot
     */
    public LockAnnotationValidator(ObjectProvider<LockOperationSource> operations, ObjectProvider<LockKeyEvaluator> keys,
                                   ObjectProvider<LockClients> clients, boolean woven) {
        this.operations = operations;
        this.keys = keys;
        this.clients = clients;
        this.woven = woven;
    }

    /** Checks that methods with a {@code fence} attribute have a fence guard to check with. */
    public void setFenceChecks(ObjectProvider<FenceCheck> fenceChecks) {
        this.fenceChecks = fenceChecks;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (checked.putIfAbsent(type, Boolean.TRUE) != null || !annotated(type)) {
            return bean;
        }
        LockOperationSource source = operations.getObject();
        LockKeyEvaluator evaluator = keys.getObject();
        ReflectionUtils.doWithMethods(type, method -> source.find(method, type).ifPresent(operation -> {
            if (!woven) {
                checkProxyable(method, operation);
            }
            evaluator.validate(operation, type);
            if (operation.fenced()) {
                fencedMethods.putIfAbsent(operation.describeMethod(), operation);
                if (started) {
                    checkFences();
                }
            }
            if (!operation.backend().isEmpty()) {
                backendsInUse.putIfAbsent(operation.backend(), operation.describeMethod());
                if (started) {
                    checkBackends();
                }
            }
        }), method -> method.getDeclaringClass() != Object.class && !method.isSynthetic());
        return bean;
    }

    /** A proxy only intercepts public, non-final instance methods: anything else would run unlocked. */
    private static void checkProxyable(Method method, LockOperation operation) {
        int modifiers = method.getModifiers();
        String why = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
                : Modifier.isFinal(modifiers) ? "final" : null;
        if (why != null) {
            throw new IllegalStateException("@DistributedLock on " + operation.describeMethod() + " would never "
                    + "lock: the method is " + why + ", and Spring's proxies only intercept public, non-final "
                    + "instance methods called from another bean. Make it public and non-final"
                    + (why.equals("static") ? " (and not static)" : "") + ", or weave the aspect with "
                    + "mortise.lock.mode=aspectj.");
        }
    }

    /** A cheap look first, so that unrelated beans (this one's own dependencies) resolve nothing. */
    private static boolean annotated(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
            return false;
        }
        if (AnnotatedElementUtils.hasAnnotation(type, DistributedLock.class)) {
            return true;
        }
        boolean[] found = {false};
        ReflectionUtils.doWithMethods(type, method -> found[0] = true,
                method -> !found[0] && AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
        return found[0];
    }

    @Override
    public void afterSingletonsInstantiated() {
        started = true;
        checkBackends();
        checkFences();
    }

    private void checkFences() {
        ObjectProvider<FenceCheck> checks = fenceChecks;
        if (fencedMethods.isEmpty() || checks == null) {
            return;
        }
        if (checks.getIfAvailable() == null) {
            throw FenceCheck.missing(fencedMethods.values().iterator().next());
        }
    }

    private void checkBackends() {
        if (backendsInUse.isEmpty()) {
            return;
        }
        LockClients configured = clients.getObject();
        backendsInUse.forEach((backend, method) -> {
            if (!configured.contains(backend)) {
                throw new IllegalStateException("@DistributedLock(backend = \"" + backend + "\") on " + method
                        + " names a backend that is not configured; configured: " + configured.names()
                        + ". Add the backend's module and mortise.lock.backends." + backend
                        + ".* settings, or use one of the configured names.");
            }
        });
    }
}
