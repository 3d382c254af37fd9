/**
 * The JMH benchmark of the {@code @DistributedLock} advice's overhead over a direct
 * {@code LockClient} call, and its runner.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.jmh;
