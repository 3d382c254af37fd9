package dev.mortise.lock.spring.internal;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies the {@link LockInterceptor} to {@code @DistributedLock} methods. Its order
 * decides where the lock sits among other advice: by default before (outside)
 * {@code @Transactional}, whose advisor has the lowest precedence.
 */
public final class LockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LockPointcut pointcut;
    private final transient LockInterceptor interceptor;

    public LockAdvisor(LockPointcut pointcut, LockInterceptor interceptor, int order) {
        this.pointcut = pointcut;
        this.interceptor = interceptor;
        setOrder(order);
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
