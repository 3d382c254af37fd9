/**
 * Fencing bound to Spring's transactions (with {@code lock-fencing}): {@link
 * dev.mortise.lock.spring.fencing.Fences} checks a lease's fencing token in the current
 * transaction, and {@link dev.mortise.lock.spring.fencing.FenceRejectionListener}s are told of
 * each refused write.
 *
 * <p>API: users may depend on everything here. It uses none of the starter's internal packages;
 * the auto-configuration adapts {@code Fences} for {@code @DistributedLock(fence = ...)}.
 */
package dev.mortise.lock.spring.fencing;
