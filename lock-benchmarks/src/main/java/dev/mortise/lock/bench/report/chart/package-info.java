/**
 * The SVG charts of the report, one per scenario, drawn from the result records.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.report.chart;
