package dev.mortise.lock.spring.internal;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;

import java.lang.reflect.Method;

/**
 * Kotlin {@code suspend} methods as Spring's AOP hands them to advice: since Spring Framework 6.1
 * a proxy invokes a suspending function through {@code CoroutinesUtils.invokeSuspendingFunction},
 * so {@code proceed()} returns a Reactor {@code Mono} (a {@code Flux} for a method returning a
 * {@code Flow}) that runs the function's body when subscribed, and the proxy awaits what the advice
 * returns in the caller's coroutine ({@code awaitSingleOrNull}: cancelling the coroutine cancels the
 * subscription). The advice handles such a method as one returning that publisher. Needs no Kotlin
 * on the class path: Spring's detector answers false without it.
 */
final class SuspendingMethods {

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    private SuspendingMethods() {
    }

    /**
     * The publisher type a proxy hands {@code method}'s invocation over as: {@code Mono}, or
     * {@code Flux} for a {@code Flow}; {@code null} if it is not a Kotlin {@code suspend} method.
     */
    static Class<?> publisherType(Method method) {
        if (!KotlinDetector.isSuspendingFunction(method)) {
            return null;
        }
        // Resolved only here, for a suspend method, whose proxy needs Reactor anyway.
        return FLOW.equals(new MethodParameter(method, -1).getParameterType().getName())
                ? reactor.core.publisher.Flux.class : reactor.core.publisher.Mono.class;
    }

    /** {@code method}'s declared return type, or for a {@code suspend} method its {@link #publisherType}. */
    static Class<?> adviceReturnType(Method method) {
        Class<?> publisher = publisherType(method);
        return publisher != null ? publisher : method.getReturnType();
    }
}
