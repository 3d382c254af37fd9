package dev.mortise.lock.spring.internal;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

import java.lang.reflect.Method;

/** The Spring AOP advice of {@code @DistributedLock}: adapts the invocation to the {@link LockInvoker}. */
public final class LockInterceptor implements MethodInterceptor {

    private final LockInvoker invoker;

    public LockInterceptor(LockInvoker invoker) {
        this.invoker = invoker;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        return invoker.invoke(new LockInvocation() {
            @Override
            public Method method() {
                return invocation.getMethod();
            }

            @Override
            public Object target() {
                return invocation.getThis();
            }

            @Override
            public Class<?> targetClass() {
                Object target = invocation.getThis();
                return target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
            }

            @Override
            public Object[] arguments() {
                return invocation.getArguments();
            }

            @Override
            public Object proceed(Object[] args) throws Throwable {
                if (args != invocation.getArguments()) {
                    if (!(invocation instanceof ProxyMethodInvocation proxied)) {
                        throw new IllegalStateException("Cannot inject the @FencingToken argument of "
                                + invocation.getMethod() + ": the invocation does not allow changing arguments");
                    }
                    proxied.setArguments(args);
                }
                return invocation.proceed();
            }
        });
    }
}
