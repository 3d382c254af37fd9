package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockClient;
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
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks every {@code @DistributedLock} of every bean when the bean is created: durations,
 * policies, the key's SpEL syntax, and (once all singletons exist) that the named backend
 * is configured and can honour the method's {@code lease} ({@link LockClient#shortestLease()}:
 * the backend's floor, e.g. etcd's whole seconds, and the clock-drift allowance; known
 * without a server). A mistake fails start-up with the method and the fix, not the first call.
 */
public final class LockAnnotationValidator implements BeanPostProcessor, SmartInitializingSingleton {

    private final ObjectProvider<LockOperationSource> operations;
    private final ObjectProvider<LockKeyEvaluator> keys;
    private final ObjectProvider<LockClients> clients;
    private final Map<Class<?>, Boolean> checked = new ConcurrentHashMap<>();
    private final Map<String, String> backendsInUse = new ConcurrentHashMap<>();
    private final Map<String, LockOperation> fencedMethods = new ConcurrentHashMap<>();
    private final Map<String, LeasedMethod> leasedMethods = new ConcurrentHashMap<>();
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
            if (operation.lease() != null) {
                String written = source.annotation(method, type).map(DistributedLock::lease)
                        .orElse(operation.lease().toString());
                leasedMethods.putIfAbsent(operation.describeMethod(), new LeasedMethod(beanName, operation, written));
                if (started) {
                    checkLeases();
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
        checkLeases();
    }

    /** An explicit lease the backend cannot honour would fail every call: fail start-up instead. */
    private void checkLeases() {
        if (leasedMethods.isEmpty()) {
            return;
        }
        LockClients configured = clients.getObject();
        for (LeasedMethod leased : leasedMethods.values()) {
            LockOperation operation = leased.operation();
            String backend = operation.backend();
            if (!backend.isEmpty() && !configured.contains(backend)) {
                continue; // checkBackends names it
            }
            LockClient client = backend.isEmpty() ? configured.getDefault() : configured.get(backend);
            Duration floor = client.shortestLease();
            if (operation.lease().compareTo(floor) < 0) {
                throw new IllegalStateException("@DistributedLock(lease = \"" + leased.written() + "\") on bean '"
                        + leased.beanName() + "', method " + operation.describeMethod() + ", is " + operation.lease()
                        + ", shorter than the " + floor + " that backend '" + client.backendName() + "' can honour "
                        + "(its shortest lease, with the clock-drift allowance): every call would fail. Set lease "
                        + "to at least " + floor + ", or remove it for a lease renewed while the method runs.");
            }
        }
    }

    /** A method with an explicit lease: the bean it was found on and the attribute as written. */
    private record LeasedMethod(String beanName, LockOperation operation, String written) {
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
