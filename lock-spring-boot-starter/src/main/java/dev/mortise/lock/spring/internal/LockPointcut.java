package dev.mortise.lock.spring.internal;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

import java.lang.reflect.Method;

/**
 * Matches methods that {@code @DistributedLock} applies to (their own annotation, or their
 * class's for public methods). Matching resolves and validates the annotation, so a bad
 * one fails when the proxy is created, at start-up.
 */
public final class LockPointcut extends StaticMethodMatcherPointcut {

    private final LockOperationSource operations;

    public LockPointcut(LockOperationSource operations) {
        this.operations = operations;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return operations.find(method, targetClass).isPresent();
    }
}
