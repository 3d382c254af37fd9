package dev.mortise.lock.spring.internal;

/**
 * Locks methods whose result completes later (a {@code CompletionStage}, a {@code Mono}):
 * holds the lock until the result completes. Pluggable, as resilience4j's aspect
 * extensions, so optional libraries stay optional.
 */
public interface ReturnTypeHandler {

    /** Whether this handler owns methods declaring {@code returnType}. */
    boolean supports(Class<?> returnType);

    /** Acquires, runs and releases for {@code call}, returning the method's (wrapped) result. */
    Object handle(LockedCall call) throws Throwable;
}
