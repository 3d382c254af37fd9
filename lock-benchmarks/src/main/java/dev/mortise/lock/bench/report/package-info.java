/**
 * The report of a run: the environment and versions measured, the targets met or missed,
 * ratios, and the raw ({@code results.json}) and Markdown ({@code docs/BENCHMARKS.md}) outputs,
 * which can be read back to render again without measuring.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.report;
