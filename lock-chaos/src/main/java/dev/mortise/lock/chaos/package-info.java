/**
 * The fault-injection harness (internal: no compatibility promise; run it through
 * {@code scripts/chaos.sh}, which starts {@link dev.mortise.lock.chaos.ChaosRun}).
 *
 * <p>The controller ({@link dev.mortise.lock.chaos.ChaosRun}, {@code TableRun},
 * {@code RunPlan}) starts real lock servers ({@link dev.mortise.lock.chaos.BackendServer})
 * and worker JVMs ({@link dev.mortise.lock.chaos.ChaosWorker}) that write to a fenced PostgreSQL
 * ledger ({@link dev.mortise.lock.chaos.Ledger}), injects faults into them
 * ({@code FaultInjector}, {@link dev.mortise.lock.chaos.ChaosProxy}) and judges the
 * logs ({@link dev.mortise.lock.chaos.LedgerChecker}); {@link dev.mortise.lock.chaos.ReliabilityReport}
 * writes {@code docs/RELIABILITY.md}. The soak ({@link dev.mortise.lock.chaos.Soak}) runs each backend
 * for long under random faults and checks the workers' resources stay flat.
 */
package dev.mortise.lock.chaos;
