package dev.mortise.lock.spring.aspectj;

import dev.mortise.lock.spring.internal.LockInvocation;
import dev.mortise.lock.spring.internal.LockInvoker;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

import java.lang.reflect.Method;

/**
 * The {@code @DistributedLock} advice as an AspectJ aspect, for compile-time or load-time
 * weaving, where calls from a bean to its own methods ({@code this.pay(order)}) are locked
 * too. Same engine, same semantics as the proxy-based interceptor.
 *
 * <p>Set {@code mortise.lock.mode=aspectj} so the auto-configuration hands its engine to
 * the woven aspect ({@link #setInvoker}) instead of creating proxies, and weave this class
 * into your code (the {@code aspectj-maven-plugin} with {@code lock-spring-boot-starter} as
 * an aspect library, or {@code -javaagent:aspectjweaver.jar} with this aspect listed in
 * {@code META-INF/aop.xml}). Until an invoker is set, annotated methods fail rather than
 * run unlocked, so a missing wiring never goes unnoticed.
 */
@Aspect
public class DistributedLockAspect {

    private volatile LockInvoker invoker;

    /** For AspectJ's own instantiation; call {@link #setInvoker} before use. */
    public DistributedLockAspect() {
    }

    /** For Spring-managed use (an {@code @Aspect} bean, {@code AspectJProxyFactory}). */
    public DistributedLockAspect(LockInvoker invoker) {
        this.invoker = invoker;
    }

    /** Hands the engine to a woven aspect instance. */
    public void setInvoker(LockInvoker invoker) {
        this.invoker = invoker;
    }

    @Around("execution(* *(..)) && (@annotation(dev.mortise.lock.spring.DistributedLock) "
            + "|| (execution(public * *(..)) && @within(dev.mortise.lock.spring.DistributedLock)))")
    public Object lock(ProceedingJoinPoint joinPoint) throws Throwable {
        LockInvoker current = invoker;
        if (current == null) {
            throw new IllegalStateException("@DistributedLock on " + joinPoint.getSignature()
                    + " is woven by AspectJ but the aspect has no engine: set mortise.lock.mode=aspectj so the "
                    + "auto-configuration wires it, or call DistributedLockAspect.setInvoker.");
        }
        return current.invoke(new JoinPointInvocation(joinPoint));
    }

    private record JoinPointInvocation(ProceedingJoinPoint joinPoint) implements LockInvocation {

        @Override
        public Method method() {
            return ((MethodSignature) joinPoint.getSignature()).getMethod();
        }

        @Override
        public Object target() {
            return joinPoint.getTarget();
        }

        @Override
        public Class<?> targetClass() {
            Object target = joinPoint.getTarget();
            return target != null ? target.getClass() : method().getDeclaringClass();
        }

        @Override
        public Object[] arguments() {
            return joinPoint.getArgs();
        }

        @Override
        public Object proceed(Object[] args) throws Throwable {
            return joinPoint.proceed(args);
        }
    }
}
