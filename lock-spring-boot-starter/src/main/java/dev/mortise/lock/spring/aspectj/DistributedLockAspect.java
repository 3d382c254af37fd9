package dev.mortise.lock.spring.aspectj;

import dev.mortise.lock.spring.internal.LockInvocation;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.WovenInvoker;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.springframework.core.KotlinDetector;

import java.lang.reflect.Method;

/**
 * The {@code @DistributedLock} advice as an AspectJ aspect, for compile-time or load-time
 * weaving, where calls from a bean to its own methods ({@code this.pay(order)}) are locked
 * too. Same engine, same semantics as the proxy-based interceptor.
 *
 * <p>Set {@code mortise.lock.mode=aspectj} so the auto-configuration hands its engine to
 * the woven aspect instead of creating proxies, and weave this class
 * into your code (the {@code aspectj-maven-plugin} with {@code lock-spring-boot-starter} as
 * an aspect library, or {@code -javaagent:aspectjweaver.jar} with this aspect listed in
 * {@code META-INF/aop.xml}). Until it has the engine, annotated methods fail rather than
 * run unlocked, so a missing wiring never goes unnoticed. Kotlin {@code suspend} methods are
 * locked by the proxies only (a woven suspend method fails, see the message).
 */
@Aspect
public class DistributedLockAspect {

    /** For AspectJ's own instantiation; the auto-configuration hands it the engine. */
    public DistributedLockAspect() {
    }

    @Around("execution(* *(..)) && (@annotation(dev.mortise.lock.spring.DistributedLock) "
            + "|| (execution(public * *(..)) && @within(dev.mortise.lock.spring.DistributedLock)))")
    public Object lock(ProceedingJoinPoint joinPoint) throws Throwable {
        LockInvoker current = WovenInvoker.current();
        if (current == null) {
            throw new IllegalStateException("@DistributedLock on " + joinPoint.getSignature()
                    + " is woven by AspectJ but the aspect has no engine: set mortise.lock.mode=aspectj so the "
                    + "auto-configuration wires it.");
        }
        Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
        if (KotlinDetector.isSuspendingFunction(method)) {
            // Woven code sees a suspend function's raw continuation calls, which cannot be held
            // across suspensions here; Spring's proxies hand them over as a Mono instead.
            throw new IllegalStateException("@DistributedLock on the Kotlin suspend method " + joinPoint.getSignature()
                    + " is woven by AspectJ, which cannot hold a lock across the method's suspensions: lock suspend "
                    + "methods through Spring's proxies (mortise.lock.mode=proxy, the default), or call lock-kotlin's "
                    + "withLock inside the method. The method did not run.");
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
