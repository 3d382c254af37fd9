package dev.mortise.lock.spring.internal;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

import java.lang.reflect.Method;

/**
 * Applies the {@link FenceInterceptor} to {@code @DistributedLock(fence = ...)} methods, with
 * the lowest precedence: inside the lock advice and inside {@code @Transactional} (whose
 * advisor also has the lowest precedence by default; equal orders keep the order in which the
 * advisors were registered, and the starter's auto-configuration registers this one after the
 * application's and Boot's transaction configuration). Should it ever run outside the
 * transaction, the check fails with a message naming the method rather than checking nothing.
 */
public final class FenceAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    /** The advisor's order: the lowest precedence. */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE;

    private final transient Pointcut pointcut;
    private final transient FenceInterceptor interceptor;

    public FenceAdvisor(LockOperationSource operations, FenceInterceptor interceptor) {
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return operations.find(method, targetClass).map(LockOperation::fenced).orElse(false);
            }
        };
        this.interceptor = interceptor;
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
