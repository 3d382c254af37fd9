/**
 * The {@code @DistributedLock} advice as an AspectJ aspect, for compile-time or load-time weaving
 * ({@code mortise.lock.mode=aspectj}). Kotlin {@code suspend} methods are locked through Spring's
 * proxies only: a woven one fails with a message saying so.
 *
 * <p>API: users name {@link dev.mortise.lock.spring.aspectj.DistributedLockAspect} to weave it
 * (aspect library, {@code META-INF/aop.xml}); the auto-configuration hands it the engine, which
 * no public signature here shows.
 */
package dev.mortise.lock.spring.aspectj;
