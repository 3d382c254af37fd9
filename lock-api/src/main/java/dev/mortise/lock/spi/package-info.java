/**
 * The SPI: what a backend implements ({@link dev.mortise.lock.spi.LockBackend}) and the helpers
 * backend writers use (requests, grants, attempts, renewal answers, deadlines, key encoding,
 * polling and its asynchronous form on the JVM's shared {@link dev.mortise.lock.spi.AsyncWaits} threads,
 * a backend's wait written once as {@link dev.mortise.lock.spi.WaitSteps} and run blocking or
 * asynchronously by {@link dev.mortise.lock.spi.WaitDriver},
 * the ticker, {@link dev.mortise.lock.spi.ForwardingLockBackend} for decorators). SPI:
 * backend writers depend on it; users meet only {@code LockBackend} and {@code BackendGuarantees}.
 *
 * <p>Everything the contract can say once (reentrancy, the watchdog, local validity and queuing,
 * listeners, argument checks) is in the core, not here and not in the backends. This package uses
 * nothing of Mortise but the user API's vocabulary ({@link dev.mortise.lock.LockMode},
 * {@link dev.mortise.lock.LostReason}).
 */
package dev.mortise.lock.spi;
