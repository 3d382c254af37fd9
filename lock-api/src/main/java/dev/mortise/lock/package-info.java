/**
 * The user API of Mortise: what applications call to take distributed locks. API: users depend
 * on every public type here, and it changes only compatibly.
 *
 * <p>{@link dev.mortise.lock.LockClient} is the entry point ({@link dev.mortise.lock.LockClient#builder}
 * over a backend); its leases ({@link dev.mortise.lock.LockLease}, {@link dev.mortise.lock.MultiLease},
 * {@link dev.mortise.lock.PermitLease}), the specs that describe a request, semaphores, leader
 * election, the thread's {@link dev.mortise.lock.LockContext}, listeners and the exceptions live
 * here too. {@link dev.mortise.lock.ForwardingLockClient} is the base for wrappers of a client.
 *
 * <p>This package uses nothing of Mortise but the SPI ({@code dev.mortise.lock.spi}, for the
 * backend a client is built over). It reaches its implementation through
 * {@link dev.mortise.lock.CoreProvider} (found with {@link java.util.ServiceLoader}), which is the
 * one type here that is not for users.
 */
package dev.mortise.lock;
