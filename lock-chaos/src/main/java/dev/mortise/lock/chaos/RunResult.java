package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * The measured figures of one backend × fault run, and the rules they are judged by.
 *
 * @param workload             what the workers did ({@link Workload})
 * @param keysSeed             the seed the run's random key names were drawn from ({@link ChaosKeys#random})
 * @param keys                 the run's key names
 * @param server               the lock server as run ({@link BackendServer#description()})
 * @param leaseMs              the workers' lease
 * @param faultsInjected       faults actually injected (a victim must be caught in the right state)
 * @param writeAttempts        writes the ledger logged (accepted + rejected)
 * @param staleWritesAttempted writes the ledger rejected because a higher token had been seen
 * @param staleWritesAccepted  writes accepted although a higher token had been seen (must be 0)
 * @param lostUpdates          increments lost or duplicated in the ledger (must be 0)
 * @param falseGrants          grants made while another worker held the key and never lost it (must be 0;
 *                             shared and permits workloads: while more conflicting holders than the
 *                             grant's mode allows held it, {@link ModeRules})
 * @param reusedTokens         grants whose (key, token) had been granted before (must be 0)
 * @param overlaps             pairs of critical sections on one key that overlapped in time:
 *                             what would have corrupted the ledger without fencing (shared and permits
 *                             workloads: grants beside more conflicting critical sections than allowed)
 * @param validitySamples      {@code isValid()} samples the holders logged
 * @param validityOverlaps     holds whose {@code isValid()} returned true after another grant of
 *                             the key had been confirmed, one per pair of holds (must be 0 but where
 *                             {@link #validityGuaranteeVoid()}); shared and permits workloads: grants
 *                             confirmed beside more valid conflicting holders than their mode allows,
 *                             one per grant, plus readers that saw a write while valid ({@link ModeRules})
 * @param clock                the clock the validity overlaps were judged on
 * @param victimWritesRejected victims (holders whose lease the fault took) whose next write the ledger rejected
 * @param onLostFired          victims whose {@code onLost} fired for the lease the fault took
 * @param takeovers            fault to next grant of the key to another worker that was already
 *                             waiting (holder faults), or to the first grant after the restart
 *                             (server faults), where measured, each with the victim hold's lease
 * @param orphans              lock entries left on the server two leases after every worker ended (must be 0)
 * @param evidence             the log lines behind any violation, for the report
 * @param figures              figures only some faults are judged by ({@link FaultFigures})
 */
public record RunResult(String backend, Fault fault, Workload workload, long keysSeed, List<String> keys,
                        String server, int seconds, int workers, long leaseMs,
                        long faultsInjected, long writeAttempts, long acceptedWrites, long staleWritesAttempted,
                        long staleWritesAccepted, long lostUpdates, long falseGrants, long reusedTokens,
                        long overlaps, long validitySamples, long validityOverlaps, LedgerChecker.Clock clock,
                        long victimWritesRejected, long onLostFired, List<LedgerChecker.Takeover> takeovers,
                        long orphans, List<String> evidence, FaultFigures figures) {

    /** A result without the fault-specific figures ({@link FaultFigures#NONE}). */
    public RunResult(String backend, Fault fault, Workload workload, long keysSeed, List<String> keys,
                     String server, int seconds, int workers, long leaseMs,
                     long faultsInjected, long writeAttempts, long acceptedWrites, long staleWritesAttempted,
                     long staleWritesAccepted, long lostUpdates, long falseGrants, long reusedTokens,
                     long overlaps, long validitySamples, long validityOverlaps, LedgerChecker.Clock clock,
                     long victimWritesRejected, long onLostFired, List<LedgerChecker.Takeover> takeovers,
                     long orphans, List<String> evidence) {
        this(backend, fault, workload, keysSeed, keys, server, seconds, workers, leaseMs, faultsInjected,
                writeAttempts, acceptedWrites, staleWritesAttempted, staleWritesAccepted, lostUpdates, falseGrants,
                reusedTokens, overlaps, validitySamples, validityOverlaps, clock, victimWritesRejected, onLostFired,
                takeovers, orphans, evidence, FaultFigures.NONE);
    }

    /**
     * Whether the run's fault voids the validity guarantee, so a validity overlap there is
     * reported but is no safety violation: {@link Fault#SERVER_KILL_VOLATILE}, whose restarted
     * server has forgotten every hold and grants the key again at once, while the holder's
     * lease - confirmed by the server before it died - is still valid by the client's clock.
     * No client can tell; only a durable server (or the fencing token, on a server that keeps
     * its counter) prevents it. Every other fault must show none.
     */
    public boolean validityGuaranteeVoid() {
        return fault == Fault.SERVER_KILL_VOLATILE;
    }

    /**
     * Why validity overlaps are expected under this fault and what held regardless, for the
     * verdict ({@code ""} where none is expected).
     */
    private String validityOverlapCause() {
        String cause = switch (fault) {
            case SERVER_CLOCK_JUMP -> "the server's clock jumped forward and expired holds early";
            case FAILOVER -> "the failover lost grants the lagging replica never received";
            default -> null;
        };
        return cause == null ? "" : " - " + cause + ", while the holders' leases were valid by their own clocks;"
                + " fencing " + (staleWritesAccepted == 0 ? "held" : "did not hold") + ": " + staleWritesAccepted
                + " stale write(s) accepted";
    }

    /** The takeover times in millis, in the order measured. */
    public List<Long> takeoverMillis() {
        return takeovers.stream().map(LedgerChecker.Takeover::millis).toList();
    }

    /**
     * Takeovers slower than the bound after a holder's death: the victim hold's lease (the
     * default, or the longer one it asked for in the mixed workload) plus one second.
     */
    public List<LedgerChecker.Takeover> slowTakeovers() {
        return takeovers.stream().filter(t -> t.millis() > t.victimLeaseMs() + 1000).toList();
    }

    /**
     * The safety rules broken: a stale write accepted, an update lost, a false grant, a token
     * granted twice, (leader workload) an epoch that did not grow across elections or a leader's
     * write accepted out of epoch order, a holder that saw its lease valid after another grant
     * (validity overlap).
     */
    public List<String> safetyViolations() {
        List<String> broken = new ArrayList<>();
        if (staleWritesAccepted > 0) {
            broken.add(staleWritesAccepted + " stale write(s) accepted");
        }
        if (lostUpdates > 0) {
            broken.add(lostUpdates + " lost update(s)");
        }
        if (falseGrants > 0) {
            broken.add(falseGrants + " false grant(s)" + (fault == Fault.FAILOVER
                    ? " - the failover lost grants the lagging replica never received" : ""));
        }
        if (reusedTokens > 0) {
            broken.add(reusedTokens + " token(s) reused");
        }
        if (figures.epochRegressions() > 0) {
            broken.add(figures.epochRegressions() + " election(s) with an epoch not above an earlier one");
        }
        if (figures.writesOutOfEpochOrder() > 0) {
            broken.add(figures.writesOutOfEpochOrder() + " leader write(s) accepted out of epoch order");
        }
        if (figures.falseVictims() > 0) {
            broken.add(figures.falseVictims() + " false deadlock victim(s): a cycle the run's history does not show");
        }
        if (validityOverlaps > 0 && !validityGuaranteeVoid()) {
            broken.add(validityOverlaps + " validity overlap(s)" + validityOverlapCause());
        }
        return broken;
    }

    /**
     * The other rules broken: orphans left, {@code onLost} not fired for a victim, a takeover
     * slower than the lease + 1 s, or (pauses) no stale write at all, so the fault did not bite.
     */
    public List<String> otherViolations() {
        List<String> broken = new ArrayList<>();
        if (orphans != 0) {
            broken.add(orphans + " orphan(s) on the server");
        }
        if (fault.holderLosesLease() && onLostFired < faultsInjected) {
            broken.add("onLost fired for " + onLostFired + " of " + faultsInjected + " victims");
        }
        if (fault.boundedTakeover() && !slowTakeovers().isEmpty()) {
            LedgerChecker.Takeover slowest = slowTakeovers().stream()
                    .max(java.util.Comparator.comparingLong(t -> t.millis() - t.victimLeaseMs())).orElseThrow();
            broken.add("takeover " + slowest.millis() + " ms > the victim's lease " + slowest.victimLeaseMs()
                    + " ms + 1 s");
        }
        // Readers (shared) and permit holders never write: a pause that struck only them shows it bit
        // by the victims' onLost alone (judged above), not by a stale write.
        boolean victimsWrite = workload != Workload.SHARED && workload != Workload.PERMITS;
        if ((fault == Fault.PAUSE || fault == Fault.CLOCK_SKEW) && faultsInjected > 0 && staleWritesAttempted == 0
                && victimsWrite) {
            broken.add("no stale write attempted: the pauses did not bite");
        }
        if (fault == Fault.SILENT_PARTITION && figures.victimsRecovered() < faultsInjected) {
            broken.add("the cut worker acquired again after " + figures.victimsRecovered() + " of " + faultsInjected
                    + " heals");
        }
        if (fault == Fault.CLIENT_CLOCK_JUMP && faultsInjected > 0
                && figures.wallSkewMillis() < ChaosRun.CLIENT_CLOCK_JUMP_MS / 2) {
            broken.add("the workers' wall clocks never jumped (off by at most " + figures.wallSkewMillis()
                    + " ms): the fault did not bite (libfaketime?)");
        }
        if (fault == Fault.CLIENT_CLOCK_JUMP && figures.leasesLost() > 0) {
            broken.add(figures.leasesLost() + " lease(s) lost although no fault took one: a wall-clock jump"
                    + " reached lease time");
        }
        if (workload == Workload.LEADER && figures.elections() == 0) {
            broken.add("no leader elected");
        }
        if (fault != Fault.NONE && faultsInjected == 0) {
            broken.add("no fault injected");
        }
        return broken;
    }

    /**
     * Every rule broken but the takeover bound: what a test on a shared, loaded machine can
     * assert without timing (the long run judges the takeover too).
     */
    public List<String> untimedViolations() {
        List<String> broken = new ArrayList<>(safetyViolations());
        otherViolations().stream().filter(v -> !v.startsWith("takeover")).forEach(broken::add);
        return broken;
    }

    /** True when no safety rule was broken. */
    public boolean safe() {
        return safetyViolations().isEmpty();
    }

    /** True when no rule at all was broken. */
    public boolean passed() {
        return safe() && otherViolations().isEmpty();
    }

    /** "safe", or what was broken. */
    public String verdict() {
        if (passed()) {
            return "safe";
        }
        List<String> all = new ArrayList<>();
        safetyViolations().forEach(v -> all.add("**UNSAFE**: " + v));
        otherViolations().forEach(v -> all.add("**FAILED**: " + v));
        return String.join("; ", all);
    }

    /** The p-th percentile (nearest rank) of the takeover times, or -1 when none was measured. */
    public long takeoverPercentile(double p) {
        if (takeovers.isEmpty()) {
            return -1;
        }
        List<Long> sorted = takeoverMillis().stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    /** One JSON object; hand-written to keep the module free of a JSON library. */
    public String toJson() {
        return "{\"backend\":\"" + backend + "\",\"fault\":\"" + fault.label() + "\",\"workload\":\""
                + workload.label() + "\",\"keysSeed\":" + keysSeed + ",\"keys\":["
                + String.join(",", keys.stream().map(RunResult::quote).toList()) + "],\"server\":\"" + server
                + "\",\"seconds\":" + seconds + ",\"workers\":" + workers + ",\"leaseMs\":" + leaseMs
                + ",\"faultsInjected\":" + faultsInjected
                + ",\"writeAttempts\":" + writeAttempts + ",\"acceptedWrites\":" + acceptedWrites
                + ",\"staleWritesAttempted\":" + staleWritesAttempted + ",\"staleWritesAccepted\":" + staleWritesAccepted
                + ",\"lostUpdates\":" + lostUpdates + ",\"falseGrants\":" + falseGrants
                + ",\"reusedTokens\":" + reusedTokens + ",\"overlapsWithoutFencing\":" + overlaps
                + ",\"validitySamples\":" + validitySamples + ",\"validityOverlaps\":" + validityOverlaps
                + ",\"validityClock\":\"" + clock + "\",\"validityGuaranteeVoid\":" + validityGuaranteeVoid()
                + ",\"victimWritesRejected\":" + victimWritesRejected + ",\"onLostFired\":" + onLostFired
                + ",\"victimsRecovered\":" + figures.victimsRecovered() + ",\"leasesLost\":" + figures.leasesLost()
                + ",\"acquireP50Ms\":" + figures.acquirePercentile(50) + ",\"acquireP99Ms\":"
                + figures.acquirePercentile(99) + ",\"wallSkewMs\":" + figures.wallSkewMillis()
                + ",\"elections\":" + figures.elections() + ",\"epochRegressions\":" + figures.epochRegressions()
                + ",\"writesOutOfEpochOrder\":" + figures.writesOutOfEpochOrder()
                + ",\"deadlockVictims\":" + figures.deadlockVictims() + ",\"falseVictims\":" + figures.falseVictims()
                + ",\"takeoverMillis\":" + takeoverMillis() + ",\"takeoverVictimLeaseMs\":"
                + takeovers.stream().map(LedgerChecker.Takeover::victimLeaseMs).toList() + ",\"orphans\":" + orphans
                + ",\"safe\":" + safe() + ",\"passed\":" + passed()
                + ",\"violations\":[" + String.join(",", (safetyViolations().isEmpty() && otherViolations().isEmpty()
                        ? List.<String>of() : java.util.stream.Stream.concat(safetyViolations().stream(),
                                otherViolations().stream()).map(RunResult::quote).toList()))
                + "],\"evidence\":[" + String.join(",", evidence.stream().map(RunResult::quote).toList()) + "]}";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
