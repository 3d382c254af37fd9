/**
 * Micrometer support: {@link dev.mortise.lock.spring.metrics.LockMetrics} (the lock meters, for
 * annotated and programmatic locks alike), {@link dev.mortise.lock.spring.metrics.LockObservations}
 * (an observation per {@code @DistributedLock} acquire) and leadership metrics.
 *
 * <p>API: users may depend on these types and their meter names and tags. {@code LockMetrics}
 * reads the name of the annotated acquire running on the thread from the engine, an internal
 * detail that none of their signatures shows.
 */
package dev.mortise.lock.spring.metrics;
