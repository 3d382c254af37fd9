package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Grants whose ACQUIRED line a pause pushed past the grant. A worker logs ACQUIRED after
 * {@code acquire} returns, and the controller picks a waiter victim by its last line being
 * WAIT, so a SIGSTOP can land after the client decided the grant and before the line was
 * written: inside {@code acquire} (on a cold JVM the first grant's bookkeeping loads classes
 * for many milliseconds) or between its return and the log. The line then carries the time
 * after the pause, when the lease has long expired and others have held the key, and reads as
 * a false grant although the grant was made before the pause, while the key was free.
 *
 * <p>Such a line is re-timed to the instant the pause struck, the latest time the grant can
 * have had if it was made before it - but only when nothing after the pause shows the lease in
 * force: no {@code isValid()} sample of it returned true and no write with its token was
 * accepted. A grant made after the pause on evidence older than the pause (the defect the
 * false-grant rule exists for) that its holder ever saw valid, or whose write got through,
 * keeps its logged time and is judged as any other. One that was never in force harmed
 * nothing the contract promises: its holder was never told it held the key, and fencing
 * refused its write. Found in CI (ZooKeeper, waiter-pause, a fresh clone of 8aca959: w1's
 * first grant, token 7, logged 4.4 s after its WAIT, every sample false; see
 * {@code LedgerCheckerTest.aGrantLoggedAfterAPauseThatStruckItsWaitIsTimedAtThePause}).
 */
final class PausedGrants {

    private PausedGrants() {
    }

    /**
     * The events with each grant that a pause separated from its WAIT line, and that was never
     * in force after that pause, moved to the instant the pause struck; all other events as they were.
     */
    static List<WorkerEvent> placed(List<WorkerEvent> events, List<InjectedFault> faults) {
        List<WorkerEvent> out = new ArrayList<>(events.size());
        for (WorkerEvent e : events) {
            out.add(e.type().equals("ACQUIRED") ? placed(e, events, faults) : e);
        }
        return out;
    }

    private static WorkerEvent placed(WorkerEvent grant, List<WorkerEvent> events, List<InjectedFault> faults) {
        WorkerEvent wait = lastWaitBefore(grant, events);
        if (wait == null) {
            return grant;
        }
        for (InjectedFault f : faults) {
            boolean pausedWhileWaiting = pauses(f.fault()) && f.worker().equals(grant.worker())
                    && f.at() >= wait.at() && f.endedAt() <= grant.at();
            if (pausedWhileWaiting && !inForceAfter(grant, f.endedAt(), events)) {
                long intoWait = f.at() - wait.at();
                return new WorkerEvent(grant.worker(), f.at(), grant.type(), grant.key(), grant.token(),
                        grant.value(), wait.mono() + intoWait * 1_000_000L, wait.wallMicros() + intoWait * 1000);
            }
        }
        return grant;
    }

    /** Faults that stop the whole worker process (SIGSTOP), so that a step and its log line can straddle them. */
    static boolean pauses(Fault fault) {
        return fault == Fault.PAUSE || fault == Fault.WAITER_PAUSE || fault == Fault.CLOCK_SKEW;
    }

    /** The worker's last WAIT line for the grant's key before the grant's line, or null. */
    private static WorkerEvent lastWaitBefore(WorkerEvent grant, List<WorkerEvent> events) {
        WorkerEvent last = null;
        for (WorkerEvent e : events) {
            if (e == grant) {
                break;
            }
            if (e.worker().equals(grant.worker()) && e.type().equals("WAIT") && e.key().equals(grant.key())) {
                last = e;
            } else if (e.worker().equals(grant.worker()) && e.type().equals("ACQUIRED")) {
                last = null; // a grant of the same cycle came in between: the wait is not this grant's
            }
        }
        return last;
    }

    /** Whether the grant was seen valid, or a write with its token accepted, at or after {@code from}. */
    private static boolean inForceAfter(WorkerEvent grant, long from, List<WorkerEvent> events) {
        return events.stream().anyMatch(e -> e.worker().equals(grant.worker()) && e.key().equals(grant.key())
                && e.token() == grant.token() && e.at() >= from
                && (e.type().equals("VALID") && e.value() == 1 || e.type().equals("WRITE_OK")));
    }
}
