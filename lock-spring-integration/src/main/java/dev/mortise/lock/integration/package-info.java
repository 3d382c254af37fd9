/**
 * Spring Integration on Mortise: {@link dev.mortise.lock.integration.MortiseLockRegistry}, a
 * {@code LockRegistry} whose locks are Mortise leases.
 *
 * <p>API: users may depend on the public types here.
 */
package dev.mortise.lock.integration;
