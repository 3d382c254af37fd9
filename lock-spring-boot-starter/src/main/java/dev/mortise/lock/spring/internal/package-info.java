/**
 * The {@code @DistributedLock} and {@code @LeaderOnly} engine: operations read from the
 * annotations, key and fence evaluation, the invoker and its Spring AOP and AspectJ adapters,
 * return-type handlers (results that complete later, and Kotlin {@code suspend} methods as the
 * publishers Spring's AOP hands them over as, acquired on {@code LockClient.acquireAsync} without
 * a waiting thread), transaction binding, and the observer and fence-check interfaces the
 * auto-configuration plugs the public beans into.
 *
 * <p>Internal: no compatibility promise; only the starter's own packages use it.
 */
package dev.mortise.lock.spring.internal;
