/**
 * The two {@link dev.mortise.lock.LockSemaphore}s behind {@link dev.mortise.lock.LockClient#semaphore}
 * ({@link dev.mortise.lock.internal.semaphore.Semaphores}): native, where the backend keeps
 * permits, and the slot fallback built on exclusive locks (one acquisition's steps in
 * {@link dev.mortise.lock.internal.semaphore.SlotAcquisition}, run blocking or asynchronously); the
 * asynchronous forms share {@link dev.mortise.lock.internal.semaphore.AsyncPermits}. Internal: no
 * compatibility promise.
 *
 * <p>The native semaphore talks to the core through {@link dev.mortise.lock.internal.semaphore.PermitHolds},
 * which the core implements; this package never names the core's classes.
 */
package dev.mortise.lock.internal.semaphore;
