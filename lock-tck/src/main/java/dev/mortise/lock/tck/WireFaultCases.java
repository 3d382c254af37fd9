package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.tck.WireHolds.Held;
import dev.mortise.lock.tck.WireHolds.Mode;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faults of the wire-level suite ({@link WireFaultContract}) on a key held by nobody: each takes
 * one mode's wire (client A through its proxies), runs one fault and checks the invariants (B never
 * holds while A is valid, tokens of successive holders grow, one {@code onLost} per lost hold,
 * nothing left on the server). Also the helpers the waiter faults ({@link WireWaiterCases}) share.
 */
final class WireFaultCases {

    /** Slack on top of a lease for "eventually": wide, CI machines are loaded. */
    static final Duration SLACK = Duration.ofSeconds(10);

    /** Threads for the modes of a fault and A's pending acquires (daemons: a stuck case cannot keep the JVM alive). */
    static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "wire-fault-mode");
        t.setDaemon(true);
        return t;
    });

    /** Client A of one mode and the proxies in front of its servers. */
    record Wire(WireProxies proxies, LockClient viaProxy) {
    }

    final LockBackendContractSuite test;

    WireFaultCases(LockBackendContractSuite test) {
        this.test = test;
    }

    Duration lease() {
        return test.watchdogLease();
    }

    /** The key's random suffix: in every request that names it, and in nothing else. */
    static String marker(String name) {
        return name.substring(name.lastIndexOf(':') + 1);
    }

    void appliedThenCut(Wire wire, Mode mode, String name) throws Exception {
        WireProxies proxy = wire.proxies();
        LockClient viaProxy = wire.viaProxy();
        proxy.cutReply(marker(name));
        Held a = null;
        try {
            a = WireHolds.takeA(viaProxy, mode, name, Duration.ofSeconds(5), null);
        } catch (LockException e) {
            // Given up after the cut (or after a resend refused): the applied request must not stay behind.
        }
        // At least one: one per server the request went to (every Redlock server), one at most per proxy.
        assertThat(proxy.cuts()).as("the answer to a request naming the key was cut off").isPositive();
        if (a != null) {
            Held refused = tryTakeB(mode, name);
            if (refused != null) {
                // B got the key: only because A's validity ended first (it counts from A's first send).
                assertThat(a.isValid()).as("A, granted after the cut, valid after B was granted").isFalse();
                refused.close();
            }
            long aToken = a.token();
            closeQuietly(a);
            Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(3).plus(SLACK));
            assertThat(b.token()).as("B's token after A's").isGreaterThan(aToken);
            b.close();
        } else {
            // The request A gave up on may have been applied: it holds nothing A knows of, so it must end
            // (A's clean-up, or its lease on the server) and never block the key for good.
            Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(3).plus(SLACK));
            b.close();
        }
        assertNothingLeft(mode, name);
    }

    /**
     * A's release reaches the server and is applied, then its answer is lost with the connection:
     * a driver that resends finds nothing (its own first send deleted it), and a client that reads
     * that as "the server no longer had it" tells the owner of a loss that never happened, and
     * fails its {@code close()} with a {@link dev.mortise.lock.LockLostException} after its work is
     * done. The hold's lease is explicit, so no renewal takes the cut meant for the release.
     */
    void releaseCut(Wire wire, Mode mode, String name) throws Exception {
        WireProxies proxy = wire.proxies();
        Held a = WireHolds.takeA(wire.viaProxy(), mode, name, SLACK, lease().multipliedBy(3));
        AtomicInteger lost = new AtomicInteger();
        a.onLost(lost::incrementAndGet);
        long aToken = a.token();
        proxy.cutReply(marker(name));
        try {
            a.close();
        } catch (dev.mortise.lock.LockLostException e) {
            throw new AssertionError("a release whose answer was cut off reported as a loss: " + e, e);
        } catch (LockException e) {
            // Unconfirmed (the backend did not resend): honest, the lease ends the hold on the server.
        }
        assertThat(proxy.cuts()).as("the answer to the release was cut off").isPositive();
        assertThat(lost.get()).as("onLost for a hold that was released, not lost").isZero();
        Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(4).plus(SLACK));
        assertThat(b.token()).as("B's token after A's").isGreaterThan(aToken);
        b.close();
        assertNothingLeft(mode, name);
    }

    void heldPastLease(Wire wire, Mode mode, String name) throws Exception {
        heldUntilAnotherHolds(wire, mode, name, true);
    }

    /**
     * A's request reaches the server and its answer is held until B holds the key (A's lease ran
     * out on the server meanwhile), then the connection breaks instead: a client that resends
     * finds its own entry from the first send, expired. Counting a grant from the resend, or
     * answering "granted" because that entry is there, makes A valid beside B.
     */
    void heldThenCut(Wire wire, Mode mode, String name) throws Exception {
        heldUntilAnotherHolds(wire, mode, name, false);
    }

    /**
     * A's answer is held until B holds the key, then delivered late ({@code deliver}) or lost with
     * its connection. A late answer is read within a round trip of its delivery, a resend within
     * one more; a grant from either must not be valid beside B. A that asks again waits behind B
     * and is granted, with a later token, once B lets go.
     */
    void heldUntilAnotherHolds(Wire wire, Mode mode, String name, boolean deliver) throws Exception {
        WireProxies proxy = wire.proxies();
        LockClient viaProxy = wire.viaProxy();
        proxy.holdReply(marker(name));
        Duration wait = lease().multipliedBy(4).plus(SLACK);
        CompletableFuture<Held> late = CompletableFuture.supplyAsync(
                () -> WireHolds.takeA(viaProxy, mode, name, wait, null), EXECUTOR);
        assertThat(proxy.awaitHeld(SLACK)).as("the answer to A's request is held").isTrue();
        // A's request reached the server; nobody renews what A does not know it holds, so B gets the key.
        Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(3).plus(SLACK));
        if (deliver) {
            proxy.letGo();
        } else {
            proxy.dropHeld();
        }
        Held a = awaitOrNull(late, lease());
        if (a != null) {
            assertThat(a.isValid() && b.isValid()).as("A valid beside B after a late answer (delivered: %s)",
                    deliver).isFalse();
            assertThat(a.token()).as("A's grant is not B's token").isNotEqualTo(b.token());
        }
        long bToken = b.token();
        b.close();
        if (a == null) {
            a = awaitOrNull(late, wait); // A asked again and waits behind B
        }
        if (a != null) {
            if (a.isValid()) {
                assertThat(a.token()).as("A granted after B: a later token").isGreaterThan(bToken);
            }
            closeQuietly(a);
        }
        assertNothingLeft(mode, name);
    }

    /**
     * A's request with an explicit lease is applied; its answer is held for most of the lease, then
     * the connection breaks. A client that resends finds its own live entry from the first send: if
     * it is granted, its validity must count from that first send, so it ends when the server's
     * entry does, before B can be granted (a grant counted from the resend stays valid beside B).
     */
    void resentWithinLease(Wire wire, Mode mode, String name) throws Exception {
        WireProxies proxy = wire.proxies();
        LockClient viaProxy = wire.viaProxy();
        proxy.holdReply(marker(name));
        CompletableFuture<Held> late = CompletableFuture.supplyAsync(
                () -> WireHolds.takeA(viaProxy, mode, name, SLACK, lease()), EXECUTOR);
        assertThat(proxy.awaitHeld(SLACK)).as("the answer to A's request is held").isTrue();
        Thread.sleep(lease().toMillis() * 4 / 5); // the fault's shape: the answer is late by most of the lease
        proxy.dropHeld();
        Held a = awaitOrNull(late, SLACK);
        Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(4).plus(SLACK));
        if (a != null) {
            assertThat(a.isValid()).as("A, granted on a resend, valid after B was granted").isFalse();
            assertThat(b.token()).as("B's token after A's").isGreaterThan(a.token());
            closeQuietly(a);
        }
        b.close();
        assertNothingLeft(mode, name);
    }

    void silenced(Wire wire, Mode mode, String name) throws Exception {
        WireProxies proxy = wire.proxies();
        LockClient viaProxy = wire.viaProxy();
        Held a = WireHolds.takeA(viaProxy, mode, name, SLACK, null);
        AtomicInteger lost = new AtomicInteger();
        a.onLost(lost::incrementAndGet);
        proxy.silence();
        LockBackendContractSuite.await(lease().plus(SLACK), () -> !a.isValid(),
                "A's validity to end on its own while its wire is silent");
        Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(4).plus(SLACK));
        proxy.resume(); // A reads what queued up: stale answers, events
        LockBackendContractSuite.await(SLACK, () -> lost.get() >= 1, "A to be told it lost the hold");
        for (int i = 0; i < 20; i++) {
            assertThat(a.isValid()).as("A valid again after its wire came back, while B holds").isFalse();
            Thread.sleep(lease().toMillis() / 20);
        }
        assertThat(b.isValid()).isTrue();
        assertThat(b.token()).as("B's token after A's").isGreaterThan(a.token());
        closeQuietly(a);
        assertThat(lost.get()).as("onLost told once").isEqualTo(1);
        b.close();
        assertNothingLeft(mode, name);
    }

    /** B's hold if the key is free now, else null. */
    Held tryTakeB(Mode mode, String name) {
        try {
            return WireHolds.takeB(test.b, mode, name, Duration.ZERO);
        } catch (LockException e) {
            return null;
        }
    }

    static Held awaitOrNull(CompletableFuture<Held> pending, Duration max) throws InterruptedException {
        try {
            return pending.get(max.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LockException) {
                return null; // refused or given up: no grant
            }
            throw new AssertionError("A's acquire failed with something other than a LockException", e.getCause());
        }
    }

    static void closeQuietly(Held held) {
        try {
            held.close();
        } catch (LockException e) {
            // lost or unreachable: the hold is gone either way
        }
    }

    void assertNothingLeft(Mode mode, String name) throws Exception {
        List<String> keys = WireHolds.keys(test.b, mode, name);
        for (String key : keys) {
            LockBackendContractSuite.await(lease().multipliedBy(3).plus(SLACK), () -> {
                try {
                    return test.residueOnServer(key) == 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "nothing left on the server for " + key);
        }
    }
}
