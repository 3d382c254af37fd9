/**
 * ShedLock on Mortise: {@link dev.mortise.lock.shedlock.MortiseLockProvider}, a ShedLock
 * {@code LockProvider} over a Mortise {@code LockClient}, and the lock it hands out.
 *
 * <p>API: users may depend on the public types here; {@code Hold} is package-private.
 */
package dev.mortise.lock.shedlock;
