package dev.mortise.lock.spring.internal;

import java.lang.reflect.Method;

/**
 * One intercepted call, whichever AOP flavour intercepted it (a Spring proxy's
 * {@code MethodInvocation}, an AspectJ {@code ProceedingJoinPoint}).
 */
public interface LockInvocation {

    /** The method as invoked (possibly an interface method). */
    Method method();

    /** The target object, or {@code null} for a static method. */
    Object target();

    /** The class the method is invoked on. */
    Class<?> targetClass();

    /** The arguments as the caller passed them. */
    Object[] arguments();

    /** Runs the method (the rest of the advice chain) with {@code args}. Called at most once. */
    Object proceed(Object[] args) throws Throwable;
}
