package dev.mortise.lock.tck;

import dev.mortise.lock.tck.WireFaultCases.Wire;
import dev.mortise.lock.tck.WireHolds.Held;
import dev.mortise.lock.tck.WireHolds.Mode;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static dev.mortise.lock.tck.WireFaultCases.EXECUTOR;
import static dev.mortise.lock.tck.WireFaultCases.SLACK;
import static dev.mortise.lock.tck.WireFaultCases.marker;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiter's faults of the wire-level suite ({@link WireFaultContract}): client A waits behind
 * B's hold, so its grant comes, once B lets go, by the path a waiter learns it is granted on (a
 * release message and the attempt after it, a watch event, a hand-off inside the release, a
 * notification, a poll). The answer of that path that grants A (the reply to A's next request naming
 * the key, or, where the backend grants on the wake-up itself, the message that names it) is cut off
 * with its connection, or held until another client holds the key and then delivered. Another client contends meanwhile; a sampler checks throughout that A and it are
 * never valid at once, and the one granted after the other has let go gets the later token.
 *
 * <p>A waits through the asynchronous path in the EXCLUSIVE ({@code acquireAsync}), PERMITS
 * ({@code LockSemaphore.acquireAsync}) and MULTI_KEY ({@code acquireAllAsync}) modes, and on a thread
 * (the blocking path) in the SHARED and LEADER modes ({@link WireHolds#waitsAsync}); the modes run at
 * once, so both paths meet every waiter fault in one run.
 */
final class WireWaiterCases {

    private final WireFaultCases cases;
    private final BooleanSupplier grantedByReply;

    /** @param grantedByReply whether a woken waiter learns its grant from a reply (else from the wake-up itself) */
    WireWaiterCases(WireFaultCases cases, BooleanSupplier grantedByReply) {
        this.cases = cases;
        this.grantedByReply = grantedByReply;
    }

    void handOffCut(Wire wire, Mode mode, String name) throws Exception {
        handOff(wire, mode, name, true);
    }

    void handOffLate(Wire wire, Mode mode, String name) throws Exception {
        handOff(wire, mode, name, false);
    }

    private void handOff(Wire wire, Mode mode, String name, boolean cut) throws Exception {
        LockBackendContractSuite test = cases.test;
        WireProxies proxies = wire.proxies();
        Duration lease = cases.lease();
        Duration long_ = lease.multipliedBy(6).plus(SLACK).plus(SLACK);
        // On a long explicit lease: a waiter that retries when the holder's lease would end stays quiet.
        Held first = WireHolds.takeB(test.b, mode, name, SLACK, long_.multipliedBy(2));
        proxies.count(marker(name));
        // A cut waiter on an explicit lease (in every mode that takes one), left to run out in settle():
        // a grant counted from later than the server set its lease (a hand-off whose message was lost,
        // then read by an attempt that does not re-apply the lease) is not hidden by a watchdog that
        // renews it in time, nor by a close before the server's lease ends.
        Duration aLease = cut && mode.takesExplicitLeases() ? lease : null;
        CompletableFuture<Held> waiter = WireHolds.waitsAsync(mode)
                ? WireHolds.takeAAsync(wire.viaProxy(), mode, name, long_, aLease)
                : CompletableFuture.supplyAsync(() -> WireHolds.takeA(wire.viaProxy(), mode, name, long_, aLease),
                EXECUTOR);
        // A has queued, subscribed or watched, and now waits to be woken (a poller never goes quiet).
        proxies.awaitQuiet(SLACK, Duration.ofMillis(500), lease.multipliedBy(2));
        assertThat(waiter).as("A waits while B holds").isNotDone();
        proxies.strikeTheAnswer(marker(name), cut, grantedByReply.getAsBoolean());
        Overlaps overlaps = new Overlaps(waiter);
        CompletableFuture<Held> next;
        try {
            first.close();
            boolean struck = proxies.awaitStruck(lease.plus(SLACK), cut);
            proxies.disarm();
            assertThat(struck).as("the answer that grants the waiter (or wakes it) was %s", cut ? "cut off" : "held")
                    .isTrue();
            // Another client contends: it gets the key once A's unconfirmed grant ran out on the server.
            next = CompletableFuture.supplyAsync(() -> WireHolds.takeB(test.b, mode, name, long_), EXECUTOR);
            overlaps.watch(next);
            if (!cut) {
                LockBackendContractSuite.await(long_, () -> next.isDone() || waiter.isDone(),
                        "B or A to be granted while A's answer is held");
                proxies.letGo(); // A reads its stale answer now
            }
            settle(waiter, next, long_, lease, aLease);
        } finally {
            overlaps.stop();
        }
        overlaps.assertNone();
        cases.assertNothingLeft(mode, name);
    }

    /**
     * Waits for both A and B to be granted or to give up; whichever holds while the other still waits
     * is closed after a while (half a lease, for the sampler), so the other can be granted after it,
     * with a later token. A's grant on an explicit lease ({@code aLease}) is not closed but left to run
     * out: the other is then granted when the server ends it, so a grant that A counts from later than
     * the server applied its lease shows as A and B valid at once. Closes both.
     */
    private void settle(CompletableFuture<Held> waiter, CompletableFuture<Held> next, Duration max, Duration lease,
                        Duration aLease) throws Exception {
        Held closed = null;
        long closedToken = Long.MIN_VALUE;
        long deadline = System.nanoTime() + max.multipliedBy(2).toNanos();
        while (!(waiter.isDone() && next.isDone())) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("A or B neither granted nor given up in " + max.multipliedBy(2));
            }
            Held granted = WireFaultCases.awaitOrNull(waiter, Duration.ZERO);
            if (granted == null || granted == closed) {
                granted = WireFaultCases.awaitOrNull(next, Duration.ZERO);
            }
            if (granted != null && granted != closed) {
                Held held = granted;
                if (aLease != null && held == WireFaultCases.awaitOrNull(waiter, Duration.ZERO)) {
                    LockBackendContractSuite.await(aLease.plus(SLACK), () -> !held.isValid(),
                            "A's explicit lease to run out");
                } else {
                    Thread.sleep(lease.toMillis() / 2);
                }
                if (!(waiter.isDone() && next.isDone())) {
                    closed = granted;
                    closedToken = granted.token();
                    WireFaultCases.closeQuietly(granted); // the other waits behind it
                }
            }
            Thread.sleep(10);
        }
        Held a = WireFaultCases.awaitOrNull(waiter, Duration.ZERO);
        Held b = WireFaultCases.awaitOrNull(next, Duration.ZERO);
        if (a != null && b != null) {
            assertThat(a.token()).as("A's grant is not B's token").isNotEqualTo(b.token());
        }
        for (Held later : new Held[] {a, b}) {
            if (later != null && later != closed && closed != null && later.isValid()) {
                assertThat(later.token()).as("granted after the other let go: a later token").isGreaterThan(closedToken);
            }
        }
        Thread.sleep(lease.toMillis() / 2); // the sampler looks at both before they close
        for (Held held : new Held[] {a, b}) {
            if (held != null) {
                WireFaultCases.closeQuietly(held);
            }
        }
    }

    /**
     * Reads A's and B's holds continuously, once both exist, and records any instant both were valid.
     * Sound with no common clock: a hold that was valid and is not any more never is again, so A read
     * valid, then B valid, then A valid again means A was valid throughout, B's instant included
     * (and the same with A and B swapped).
     */
    private static final class Overlaps {
        private final CompletableFuture<Held> waiter;
        private volatile CompletableFuture<Held> next;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<String> seen = new CopyOnWriteArrayList<>();
        private final Thread thread;

        Overlaps(CompletableFuture<Held> waiter) {
            this.waiter = waiter;
            this.thread = new Thread(this::run, "wire-fault-overlaps");
            thread.setDaemon(true);
            thread.start();
        }

        void watch(CompletableFuture<Held> next) {
            this.next = next;
        }

        private void run() {
            while (running.get()) {
                Held a = granted(waiter);
                Held b = granted(next);
                if (a != null && b != null && seen.size() < 5) {
                    if (a.isValid() && b.isValid() && a.isValid()) {
                        seen.add("A (token " + a.token() + ") valid throughout B's (token " + b.token() + ") validity");
                    } else if (b.isValid() && a.isValid() && b.isValid()) {
                        seen.add("B (token " + b.token() + ") valid throughout A's (token " + a.token() + ") validity");
                    }
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private static Held granted(CompletableFuture<Held> pending) {
            return pending != null && pending.isDone() && !pending.isCompletedExceptionally() ? pending.join() : null;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(5000);
        }

        void assertNone() {
            assertThat(seen).as("A and B valid at the same instant").isEmpty();
        }
    }
}
