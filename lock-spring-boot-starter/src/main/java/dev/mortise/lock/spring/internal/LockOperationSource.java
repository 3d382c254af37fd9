package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.FencingToken;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.OnLost;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the {@link DistributedLock} that applies to a method (its own, or its class's for
 * public methods) and resolves it into a {@link LockOperation}, cached per (method,
 * target class). Thread-safe.
 */
public final class LockOperationSource {

    private static final LockOperation NONE = new LockOperation(null, "", "", null, null, OnBusy.WAIT, null, "", -1,
            OnLost.NOTIFY, null, null);

    private final Map<AnnotatedElementKey, LockOperation> cache = new ConcurrentHashMap<>(64);
    private final StringValueResolver resolver;
    private final Duration defaultWait;
    private final OnLost defaultOnLost;

    /**
     * @param resolver    resolves {@code ${...}} placeholders in duration attributes, or {@code null}
     * @param defaultWait the wait of {@link OnBusy#WAIT} methods that give none
     */
    public LockOperationSource(StringValueResolver resolver, Duration defaultWait) {
        this(resolver, defaultWait, OnLost.NOTIFY);
    }

    /**
     * @param defaultOnLost the loss policy of methods that give none ({@code mortise.lock.on-lost})
     */
    public LockOperationSource(StringValueResolver resolver, Duration defaultWait, OnLost defaultOnLost) {
        this.resolver = resolver;
        this.defaultWait = defaultWait;
        this.defaultOnLost = defaultOnLost == null || defaultOnLost == OnLost.DEFAULT ? OnLost.NOTIFY : defaultOnLost;
    }

    /**
     * The operation for {@code method} called on an instance of {@code targetClass}.
     *
     * @throws IllegalStateException if the annotation is invalid (naming the method and the fix)
     */
    public Optional<LockOperation> find(Method method, Class<?> targetClass) {
        AnnotatedElementKey cacheKey = new AnnotatedElementKey(method, targetClass);
        LockOperation cached = cache.get(cacheKey);
        if (cached == null) {
            cached = compute(method, targetClass);
            cache.put(cacheKey, cached);
        }
        return cached == NONE ? Optional.empty() : Optional.of(cached);
    }

    private LockOperation compute(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return NONE;
        }
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
        DistributedLock annotation = annotation(method, specific, targetClass);
        return annotation == null ? NONE : build(annotation, specific);
    }

    /** The {@code @DistributedLock} that applies to {@code method} on {@code targetClass}, as written (for messages). */
    public Optional<DistributedLock> annotation(Method method, Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
        return Optional.ofNullable(annotation(method, specific, targetClass));
    }

    private static DistributedLock annotation(Method method, Method specific, Class<?> targetClass) {
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation == null && Modifier.isPublic(specific.getModifiers())) {
            Class<?> type = targetClass != null ? targetClass : specific.getDeclaringClass();
            annotation = AnnotatedElementUtils.findMergedAnnotation(type, DistributedLock.class);
        }
        return annotation;
    }

    private LockOperation build(DistributedLock lock, Method method) {
        String where = LockOperation.describe(method);
        if (lock.key().isBlank()) {
            throw new IllegalStateException("@DistributedLock on " + where + " has an empty key; give a SpEL key such "
                    + "as \"'order:' + #orderId\" or a quoted literal \"'billing-run'\"");
        }
        OnBusy onBusy = lock.onBusy();
        Duration wait = DurationAttribute.parse(lock.waitFor(), "waitFor", where, resolver, true);
        if (onBusy == OnBusy.FAIL && wait != null && !wait.isZero()) {
            throw new IllegalStateException("@DistributedLock on " + where + " has onBusy = FAIL and waitFor = \""
                    + lock.waitFor() + "\": FAIL never waits. Remove waitFor, or use WAIT or SKIP to wait.");
        }
        if (wait == null) {
            wait = onBusy == OnBusy.WAIT ? defaultWait : Duration.ZERO;
        }
        Duration lease = DurationAttribute.parse(lock.lease(), "lease", where, resolver, false);
        Duration holdAtLeast = DurationAttribute.parse(lock.holdAtLeast(), "holdAtLeast", where, resolver, true);
        if (holdAtLeast != null && holdAtLeast.isZero()) {
            holdAtLeast = null;
        }
        if (holdAtLeast != null && lease != null && holdAtLeast.compareTo(lease) > 0) {
            throw new IllegalStateException("@DistributedLock on " + where + " has holdAtLeast = \""
                    + lock.holdAtLeast() + "\" longer than its lease \"" + lock.lease()
                    + "\": the lock would expire first. Lengthen the lease or remove it (renewed lease).");
        }
        if (onBusy == OnBusy.SKIP && method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
            throw new IllegalStateException("@DistributedLock on " + where + " has onBusy = SKIP but returns "
                    + method.getReturnType() + ", which has no 'nothing' value. Return a wrapper type or Optional, "
                    + "or use WAIT or FAIL.");
        }
        String name = lock.name().isBlank() ? lock.key() : lock.name();
        String fence = lock.fence().isBlank() ? null : lock.fence();
        Class<?> returned = SuspendingMethods.adviceReturnType(method);
        if (fence != null && !synchronous(returned)) {
            throw new IllegalStateException("@DistributedLock on " + where + " has fence = \"" + fence
                    + "\" but returns " + returned.getSimpleName() + (returned == method.getReturnType() ? ""
                    : " (a Kotlin suspend method)") + ": the fence is checked in the "
                    + "method's JDBC transaction, which only a method that returns synchronously has. Return the "
                    + "result directly, or check with Fences.check(resource, lease) inside your own transaction.");
        }
        return new LockOperation(method, lock.key(), name, wait, lease, onBusy, holdAtLeast, lock.backend(),
                fencingArgIndex(method, where), lock.onLost() == OnLost.DEFAULT ? defaultOnLost : lock.onLost(),
                fence, lock.mode());
    }

    /** Not a result that completes later (CompletionStage, Future, a Reactive Streams Publisher). */
    private static boolean synchronous(Class<?> type) {
        if (java.util.concurrent.CompletionStage.class.isAssignableFrom(type)
                || java.util.concurrent.Future.class.isAssignableFrom(type)) {
            return false;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (implementsPublisher(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean implementsPublisher(Class<?> type) {
        if (type.getName().equals("org.reactivestreams.Publisher")) {
            return true;
        }
        for (Class<?> parent : type.getInterfaces()) {
            if (implementsPublisher(parent)) {
                return true;
            }
        }
        return false;
    }

    private static int fencingArgIndex(Method method, String where) {
        int index = -1;
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (method.getParameters()[i].isAnnotationPresent(FencingToken.class)) {
                Class<?> type = method.getParameterTypes()[i];
                if (type != long.class && type != Long.class) {
                    throw new IllegalStateException("@FencingToken parameter " + i + " of " + where + " is a "
                            + type.getSimpleName() + "; declare it as long.");
                }
                if (index >= 0) {
                    throw new IllegalStateException(where + " has more than one @FencingToken parameter; keep one.");
                }
                index = i;
            }
        }
        return index;
    }
}
