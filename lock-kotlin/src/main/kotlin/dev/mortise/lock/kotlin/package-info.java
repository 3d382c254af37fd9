/**
 * Kotlin coroutines over Mortise (API: users may depend on it): {@code suspend} extension functions
 * of {@link dev.mortise.lock.LockClient} ({@code withLock}, {@code tryWithLock}, {@code withLocks})
 * that wait on the asynchronous acquire without holding a thread, withdraw the request when the
 * coroutine is cancelled, close each lease exactly once however the block ends, and make
 * reentrancy follow the coroutine and its children (through the coroutine context) rather than
 * the thread. {@code MortiseOwner} pins an owner id in a coroutine context. The other declarations
 * of the package are {@code internal}. See docs/kotlin.md.
 */
package dev.mortise.lock.kotlin;
