package dev.mortise.lock.spring.internal;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

import java.util.function.Supplier;

/**
 * The fence check of {@code @DistributedLock(fence = ...)} methods with Spring proxies. Its
 * advisor is ordered after (inside) both the lock advice and {@code @Transactional}, so it
 * runs with the lease held and the method's transaction begun, right before the method body:
 * the check is the transaction's first statement.
 */
public final class FenceInterceptor implements MethodInterceptor {

    private final LockOperationSource operations;
    private final Supplier<FenceCheck> check;

    public FenceInterceptor(LockOperationSource operations, Supplier<FenceCheck> check) {
        this.operations = operations;
        this.check = check;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(target);
        LockOperation operation = operations.find(invocation.getMethod(), targetClass).orElse(null);
        if (operation == null || !operation.fenced()) {
            return invocation.proceed();
        }
        ActiveLocks.Entry call = ActiveLocks.innermost(operation);
        if (call == null) {
            throw new IllegalStateException("The fence check of " + operation.describeMethod() + " ran without its "
                    + "lock: the fence advice is ordered before the @DistributedLock advice. Keep mortise.lock.order "
                    + "below " + FenceAdvisor.ORDER + " (the default is).");
        }
        FenceCheck fences = check.get();
        if (fences == null) {
            throw FenceCheck.missing(operation);
        }
        call.fence().check(fences, operation);
        return invocation.proceed();
    }
}
