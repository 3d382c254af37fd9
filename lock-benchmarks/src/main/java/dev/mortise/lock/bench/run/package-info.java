/**
 * The measured scenarios (uncontended, handoff, key sets, many leases, fence overhead) and
 * their instruments: timing, latencies, allocation, heap and server-request counts.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.run;
