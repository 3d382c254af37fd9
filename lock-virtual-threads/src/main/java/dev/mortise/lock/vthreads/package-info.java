/**
 * Many virtual threads waiting for Mortise locks, measured on a JDK 21+ on every backend:
 * {@link dev.mortise.lock.vthreads.VirtualWaiters} is the program (run in a child JVM, since the
 * build's baseline is Java 17), {@link dev.mortise.lock.vthreads.WaiterBackends} builds the backend
 * it waits on, {@link dev.mortise.lock.vthreads.PinnedEvents} counts JFR
 * {@code jdk.VirtualThreadPinned} events on Mortise's own frames. Internal to this module, not
 * published; docs/virtual-threads.md says how to run it.
 */
package dev.mortise.lock.vthreads;
