/**
 * Test support for users of Mortise: {@link dev.mortise.lock.test.TestLockClient} (the full
 * contract over an in-process server on a hand-moved {@link dev.mortise.lock.test.ManualTicker},
 * with helpers that expire, steal or lose a lease on demand) and the JUnit 5
 * {@link dev.mortise.lock.test.MortiseLockExtension}. API: users depend on it from their tests.
 * Built on lock-api's API, SPI and in-process backend alone.
 */
package dev.mortise.lock.test;
