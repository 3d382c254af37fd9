package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds a victim in the state a fault strikes and injects the fault into it (or into the
 * server): the controller's side of {@link ChaosRun#run}, one fault at a time, on its thread.
 */
final class FaultInjector {

    private FaultInjector() {
    }

    /** A worker caught in the state the fault strikes, with the event that shows it (READ or WAIT). */
    record Victim(WorkerProcess worker, WorkerEvent state) {
    }

    /**
     * Waits for a victim: for holder and server faults a worker between its READ and its write
     * (from the {@code round}-th worker on, in turn), for waiter faults any worker blocked in acquire for
     * at least 200 ms (its request is at the server).
     */
    static Victim awaitVictim(Fault fault, List<WorkerProcess> alive, int round, long timeoutMs)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        // Holders are struck in turn where possible, so the faults spread over the workers.
        List<WorkerProcess> inTurn = new ArrayList<>();
        for (int i = 0; i < alive.size(); i++) {
            inTurn.add(alive.get((round + i) % alive.size()));
        }
        while (System.currentTimeMillis() < deadline) {
            if (fault.target() == Fault.Target.WAITER) {
                for (WorkerProcess w : alive) {
                    WorkerEvent waiting = w.waitingFor(200);
                    if (waiting != null && w.isAlive()) {
                        return new Victim(w, waiting);
                    }
                }
            } else {
                for (WorkerProcess w : inTurn) {
                    WorkerEvent cs = w.inCriticalSection();
                    if (cs != null && w.isAlive()) {
                        return new Victim(w, cs);
                    }
                }
            }
            Thread.sleep(2);
        }
        return null;
    }

    /**
     * Injects the fault; null when it could not strike as asked (a pause landed after the
     * victim had left its critical section, no renewal went out, the release never came).
     * {@code round} counts the faults injected before (a clock jumps forward first in even rounds).
     */
    static InjectedFault inject(Fault fault, Victim victim, ChaosRun.Settings settings, BackendServer server,
                                        Ledger ledger, FakeClock.OffsetFile clientClock, int round)
            throws Exception {
        WorkerProcess worker = victim.worker();
        WorkerEvent state = victim.state();
        long at = System.currentTimeMillis();
        String who = worker.id();
        switch (fault) {
            case PAUSE, WAITER_PAUSE, CLOCK_SKEW -> {
                if (!pause(fault, worker, state, settings, ledger)) {
                    return null;
                }
            }
            case KILL -> worker.signal("KILL");
            case NET_CUT, WAITER_CUT -> {
                worker.proxies().forEach(ChaosProxy::cut);
                healAfterPause(worker, settings);
            }
            case NET_DELAY -> {
                worker.proxies().forEach(p -> p.delay(settings.leaseMs() * 3 / 4));
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.proxies().forEach(p -> p.delay(0));
                }
            }
            case SERVER_KILL, SERVER_KILL_VOLATILE -> {
                server.killAndRestart(1000);
                who = "server";
            }
            case LEADER_KILL -> who = "leader " + server.killLeaderAndRestart(1000);
            case SILENT_PARTITION -> {
                worker.proxies().forEach(ChaosProxy::silence);
                // TCP recovers: the held bytes go out late, in order, on the same connections.
                healAfterPause(worker, settings);
            }
            case RELEASE_KILL -> {
                Long killedAt = killInRelease(worker, state);
                if (killedAt == null) {
                    return null;
                }
                at = killedAt;
            }
            case RENEW_STOP -> {
                if (!stopDuringRenewal(worker, state, settings)) {
                    return null;
                }
                at = System.currentTimeMillis();
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.signal("CONT");
                }
            }
            case SERVER_CLOCK_JUMP -> who = jumpServerClock(server, settings, round);
            case FAILOVER, FAILOVER_WAIT -> {
                long[] promotedAt = new long[1];
                who = server.failover(ChaosRun.FAILOVER_LAG_MS, promotedAt);
                // Recovery is timed from the promotion, not from the old master's rejoin.
                return new InjectedFault(fault, who, state.key(), state.token(), at, promotedAt[0]);
            }
            case CLIENT_CLOCK_JUMP -> who = jumpClientClocks(clientClock, settings);
            default -> throw new IllegalArgumentException("nothing to inject for " + fault);
        }
        return new InjectedFault(fault, who, state.key(), state.token(), at, System.currentTimeMillis());
    }

    /**
     * SIGSTOP of the victim for the pause, then SIGCONT; false (continued at once) when a holder
     * was stopped too late, after its write.
     */
    private static boolean pause(Fault fault, WorkerProcess worker, WorkerEvent state, ChaosRun.Settings settings,
                                 Ledger ledger) throws Exception {
        worker.signal("STOP");
        try {
            if (fault != Fault.WAITER_PAUSE && (worker.leftCriticalSection(state)
                    || ledger.writeLogged(worker.id(), state.key(), state.token()))) {
                // Stopped too late, after its write: not the fault asked for. No record;
                // the round looks for another victim.
                return false;
            }
            Thread.sleep(settings.pauseMs());
            return true;
        } finally {
            worker.signal("CONT");
        }
    }

    /** Waits out the pause with the victim's proxies cut or silent, then heals them. */
    private static void healAfterPause(WorkerProcess worker, ChaosRun.Settings settings) throws InterruptedException {
        try {
            Thread.sleep(settings.pauseMs());
        } finally {
            worker.proxies().forEach(ChaosProxy::heal);
        }
    }

    /**
     * kill -9 of the victim right after its release request went out, with the reply held back;
     * the time of the kill, or null when the release never came.
     */
    private static Long killInRelease(WorkerProcess worker, WorkerEvent state) throws Exception {
        worker.proxies().forEach(ChaosProxy::holdReplies);
        try {
            WorkerEvent releasing = awaitReleasing(worker, state, 3000);
            if (releasing == null) {
                return null;
            }
            // The release request goes out right after the line: wait until the proxy forwarded one.
            long seen = requestsForwarded(worker);
            long deadline = System.nanoTime() + 500_000_000L;
            while (requestsForwarded(worker) == seen && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            long at = System.currentTimeMillis();
            worker.signal("KILL");
            return at;
        } finally {
            // The victim is dead: the held replies die with its connections.
            worker.proxies().forEach(ChaosProxy::heal);
        }
    }

    /** The server's wall clock off by {@link ChaosRun#SERVER_CLOCK_JUMP_MS} (forward in even rounds, backward in odd) for half the pause, then back; names the jump. */
    private static String jumpServerClock(BackendServer server, ChaosRun.Settings settings, int round)
            throws InterruptedException {
        long jump = round % 2 == 0 ? ChaosRun.SERVER_CLOCK_JUMP_MS : -ChaosRun.SERVER_CLOCK_JUMP_MS;
        server.jumpClock(jump);
        try {
            Thread.sleep(settings.pauseMs() / 2);
        } finally {
            server.jumpClock(0);
        }
        return "server clock " + (jump > 0 ? "+" : "-") + jump / 1000 * Long.signum(jump) + " s and back";
    }

    /** Every worker's wall clock forward, then back, then to the machine's; names the victims. */
    private static String jumpClientClocks(FakeClock.OffsetFile clientClock, ChaosRun.Settings settings)
            throws InterruptedException {
        try {
            clientClock.set(ChaosRun.CLIENT_CLOCK_JUMP_MS);
            Thread.sleep(settings.pauseMs() / 2);
            clientClock.set(-ChaosRun.CLIENT_CLOCK_JUMP_MS);
            Thread.sleep(settings.pauseMs() / 2);
        } finally {
            clientClock.set(0);
        }
        return "every worker's clock";
    }

    private static long requestsForwarded(WorkerProcess worker) {
        return worker.proxies().stream().mapToLong(ChaosProxy::requestsForwarded).sum();
    }

    /** The victim's RELEASING line for the lock of {@code read}, within {@code timeoutMs}, or null. */
    private static WorkerEvent awaitReleasing(WorkerProcess worker, WorkerEvent read, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0 && worker.isAlive()) {
            WorkerEvent releasing = worker.releasing();
            if (releasing != null && releasing.key().equals(read.key()) && releasing.token() == read.token()) {
                return releasing;
            }
            Thread.sleep(1);
        }
        return null;
    }

    /**
     * Holds the victim's replies until it sends a request before it starts to release (a
     * renewal, a keep-alive, a ping), stops it with the reply in flight and then delivers the
     * reply into the stopped process. False, with the victim running and its proxies healed,
     * when no such request came within a lease or the request was its release.
     */
    private static boolean stopDuringRenewal(WorkerProcess worker, WorkerEvent read, ChaosRun.Settings settings)
            throws Exception {
        long before = requestsForwarded(worker);
        worker.proxies().forEach(ChaosProxy::holdReplies);
        try {
            long deadline = System.nanoTime() + settings.leaseMs() * 1_000_000L;
            while (requestsForwarded(worker) == before && worker.releasing() == null
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            if (requestsForwarded(worker) == before || worker.releasing() != null) {
                return false;
            }
            worker.signal("STOP");
            // Output the worker wrote before it stopped is parsed within a moment: a release
            // that went out first is no renewal, not the fault asked for.
            Thread.sleep(100);
            boolean released = worker.events().stream().anyMatch(e -> e.type().equals("RELEASING")
                    && e.at() >= read.at());
            if (released) {
                worker.signal("CONT");
                return false;
            }
            return true;
        } finally {
            // The reply goes into the stopped process's socket: it reads it when continued.
            worker.proxies().forEach(ChaosProxy::heal);
        }
    }
}
