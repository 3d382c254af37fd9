/**
 * The benchmark harness's entry point ({@code BenchmarkMain}, run by
 * {@code scripts/benchmark.sh}): parses the options, starts the servers, runs the scenarios and
 * writes the report.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API and makes no compatibility
 * promise.
 */
package dev.mortise.lock.bench;
