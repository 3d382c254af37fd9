/**
 * What the harness's packages share: where the servers listen ({@code Endpoints}), child JVMs
 * ({@code JavaProcess}), the role of a measured subject, the result records of each scenario
 * and the titles of the backend groups. It uses no other package of the harness, so the runs,
 * subjects, reports and charts depend on it and not on each other in a cycle.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.common;
