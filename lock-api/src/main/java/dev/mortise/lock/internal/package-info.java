/**
 * The core: the one implementation of the {@link dev.mortise.lock.LockClient} contract over any
 * {@link dev.mortise.lock.spi.LockBackend} ({@code DefaultLockClient} and its parts: the acquire
 * paths, blocking and asynchronous through one per-key gate, holds and what happens to them after the grant, validity, the watchdog, expiry, events
 * and notifications, Lock views, inspection). Internal: no compatibility promise; users and
 * backends depend on the API and the SPI, never on this package.
 *
 * <p>The API reaches it only through {@link dev.mortise.lock.internal.DefaultCoreProvider} (a
 * {@link dev.mortise.lock.CoreProvider} found with {@link java.util.ServiceLoader}), which is
 * public for that alone. It uses its sub-packages ({@code group}, {@code semaphore},
 * {@code leader}); they never use it back.
 */
package dev.mortise.lock.internal;
