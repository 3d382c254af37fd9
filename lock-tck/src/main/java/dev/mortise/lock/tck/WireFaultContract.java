package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.tck.WireHolds.Held;
import dev.mortise.lock.tck.WireHolds.Mode;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults <em>below</em> the backend (issue 28), run by every {@link LockBackendContractSuite} as its
 * nested {@code WireFaults} class: client A reaches the real server through a {@link StallingProxy}
 * that strikes the first request naming the test's key, client B directly. The rule under test is
 * DESIGN.md point 4, "a grant is never older than its evidence":
 * <ul>
 *   <li>a request the server applied whose answer was lost with its connection (the client may
 *       resend or give up): never a grant beside B's, never a hold left behind;</li>
 *   <li>an answer held past the lease, then delivered: not a valid grant once B holds;</li>
 *   <li>a client whose wire went silent both ways (as a paused process) while the server went on,
 *       then read the stale answers and events that queued up: not valid beside B, told once.</li>
 * </ul>
 * In every mode (exclusive, shared, a one-permit semaphore, two keys at once) and, seeded, in a
 * random mix. The invariants are the property suite's: B never holds while A is valid, tokens of
 * successive holders grow, one {@code onLost} per lost hold, nothing left on the server.
 * A backend test with a wire nests it as {@code @Nested class WireFaults extends WireFaultContract}
 * and names its server's port ({@code wirePort()}); nothing skips. In-process backends, H2, a Redis
 * Cluster and Redlock (several servers, not yet proxied) do not nest it. A fault strikes the four
 * modes at once, each on a proxy and client of its own.
 */
@Tag("wire")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class WireFaultContract {

    /** Slack on top of a lease for "eventually": wide, CI machines are loaded. */
    static final Duration SLACK = Duration.ofSeconds(10);

    private final LockBackendContractSuite test;
    /** One wire per mode: the modes of a fault run at once, each A through a proxy of its own. */
    private final Map<Mode, Wire> wires = new EnumMap<>(Mode.class);

    /** Client A of one mode and the proxy in front of its server. */
    private record Wire(StallingProxy proxy, LockClient viaProxy) {
    }

    protected WireFaultContract(LockBackendContractSuite test) {
        this.test = test;
    }

    @BeforeEach
    void wire() throws Exception {
        for (Mode mode : Mode.values()) {
            StallingProxy proxy = new StallingProxy(test.wirePort());
            LockClient viaProxy = LockClient.builder(test.newBackendAt(proxy.port())).defaultLease(lease()).build();
            wires.put(mode, new Wire(proxy, viaProxy));
            // Connections opened and scripts loaded before the fault, so it strikes the acquire itself.
            WireHolds.takeA(viaProxy, mode, test.key("warm"), Duration.ofSeconds(5), null).close();
        }
    }

    @AfterEach
    void unwire() {
        for (Wire wire : wires.values()) {
            wire.proxy().resume();
            wire.proxy().letGo();
            wire.viaProxy().close(); // before the proxy: its releases still reach the server
            wire.proxy().close();
        }
        wires.clear();
    }

    /** A fault in every mode at once, each on a key and wire of its own; the first failure, naming its mode. */
    private void inEveryMode(String fault, ModeCase body) throws Exception {
        List<Mode> modes = List.of(Mode.values());
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (Mode mode : modes) {
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    body.run(wires.get(mode), mode, test.key(fault + "-" + mode.name().toLowerCase(Locale.ROOT)));
                } catch (Throwable t) {
                    throw new CompletionException(new AssertionError(fault + " in mode " + mode + ": " + t, t));
                }
            }, EXECUTOR));
        }
        for (CompletableFuture<Void> run : runs) {
            try {
                run.get(100, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
                throw cause instanceof AssertionError failure ? failure : new AssertionError(cause);
            }
        }
    }

    /** One fault in one mode. */
    @FunctionalInterface
    private interface ModeCase {
        void run(Wire wire, Mode mode, String name) throws Exception;
    }

    /** Threads for the modes of a fault (daemons: a stuck case cannot keep the test JVM alive). */
    private static final java.util.concurrent.ExecutorService EXECUTOR = java.util.concurrent.Executors
            .newCachedThreadPool(r -> {
                Thread t = new Thread(r, "wire-fault-mode");
                t.setDaemon(true);
                return t;
            });

    private Duration lease() {
        return test.watchdogLease();
    }

    /** The key's random suffix: in every request that names it, and in nothing else. */
    private static String marker(String name) {
        return name.substring(name.lastIndexOf(':') + 1);
    }

    @Test
    void aRequestAppliedThenCutOffIsNeverAGrantBesideAnotherNorLeftBehind() throws Exception {
        inEveryMode("cut", this::appliedThenCut);
    }

    @Test
    void anAnswerHeldPastTheLeaseIsNoGrantOnceAnotherHolds() throws Exception {
        inEveryMode("late", this::heldPastLease);
    }

    @Test
    void aResendAfterTheLeaseRanOutIsNoGrantBesideTheNextHolder() throws Exception {
        inEveryMode("resent", this::heldThenCut);
    }

    @Test
    void aGrantOnAResendCountsFromTheFirstSend() throws Exception {
        inEveryMode("first-send", this::resentWithinLease);
    }

    @Test
    void aHolderWhoseWireWentSilentIsNeverValidBesideTheNextOneAndIsToldOnce() throws Exception {
        inEveryMode("silent", this::silenced);
    }

    @Test
    void aReleaseWhoseAnswerIsCutOffIsNoLoss() throws Exception {
        inEveryMode("release-cut", this::releaseCut);
    }

    /** A fault drawn by a seed, in every mode; the seed is printed to run it again. */
    @Test
    void seededRandomFaults() throws Exception {
        long seed = System.nanoTime();
        System.out.println("WireFaultContract.seededRandomFaults seed=" + seed);
        Random random = new Random(seed);
        List<ModeCase> faults = List.of(this::appliedThenCut, this::heldPastLease, this::heldThenCut,
                this::resentWithinLease, this::silenced, this::releaseCut);
        inEveryMode("random", faults.get(random.nextInt(faults.size())));
    }

    private void appliedThenCut(Wire wire, Mode mode, String name) throws Exception {
        StallingProxy proxy = wire.proxy();
        LockClient viaProxy = wire.viaProxy();
        proxy.cutReply(marker(name));
        Held a = null;
        try {
            a = WireHolds.takeA(viaProxy, mode, name, Duration.ofSeconds(5), null);
        } catch (LockException e) {
            // Given up after the cut (or after a resend refused): the applied request must not stay behind.
        }
        assertThat(proxy.cuts()).as("the answer to a request naming the key was cut off").isEqualTo(1);
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
    private void releaseCut(Wire wire, Mode mode, String name) throws Exception {
        StallingProxy proxy = wire.proxy();
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
        assertThat(proxy.cuts()).as("the answer to the release was cut off").isEqualTo(1);
        assertThat(lost.get()).as("onLost for a hold that was released, not lost").isZero();
        Held b = WireHolds.takeB(test.b, mode, name, lease().multipliedBy(4).plus(SLACK));
        assertThat(b.token()).as("B's token after A's").isGreaterThan(aToken);
        b.close();
        assertNothingLeft(mode, name);
    }

    private void heldPastLease(Wire wire, Mode mode, String name) throws Exception {
        heldUntilAnotherHolds(wire, mode, name, true);
    }

    /**
     * A's request reaches the server and its answer is held until B holds the key (A's lease ran
     * out on the server meanwhile), then the connection breaks instead: a client that resends
     * finds its own entry from the first send, expired. Counting a grant from the resend, or
     * answering "granted" because that entry is there, makes A valid beside B.
     */
    private void heldThenCut(Wire wire, Mode mode, String name) throws Exception {
        heldUntilAnotherHolds(wire, mode, name, false);
    }

    /**
     * A's answer is held until B holds the key, then delivered late ({@code deliver}) or lost with
     * its connection. A late answer is read within a round trip of its delivery, a resend within
     * one more; a grant from either must not be valid beside B. A that asks again waits behind B
     * and is granted, with a later token, once B lets go.
     */
    private void heldUntilAnotherHolds(Wire wire, Mode mode, String name, boolean deliver) throws Exception {
        StallingProxy proxy = wire.proxy();
        LockClient viaProxy = wire.viaProxy();
        proxy.holdReply(marker(name));
        Duration wait = lease().multipliedBy(4).plus(SLACK);
        CompletableFuture<Held> late = CompletableFuture.supplyAsync(
                () -> WireHolds.takeA(viaProxy, mode, name, wait, null));
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
    private void resentWithinLease(Wire wire, Mode mode, String name) throws Exception {
        StallingProxy proxy = wire.proxy();
        LockClient viaProxy = wire.viaProxy();
        proxy.holdReply(marker(name));
        CompletableFuture<Held> late = CompletableFuture.supplyAsync(
                () -> WireHolds.takeA(viaProxy, mode, name, SLACK, lease()));
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

    private void silenced(Wire wire, Mode mode, String name) throws Exception {
        StallingProxy proxy = wire.proxy();
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
    private Held tryTakeB(Mode mode, String name) {
        try {
            return WireHolds.takeB(test.b, mode, name, Duration.ZERO);
        } catch (LockException e) {
            return null;
        }
    }

    private static Held awaitOrNull(CompletableFuture<Held> pending, Duration max) throws InterruptedException {
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

    private static void closeQuietly(Held held) {
        try {
            held.close();
        } catch (LockException e) {
            // lost or unreachable: the hold is gone either way
        }
    }

    private void assertNothingLeft(Mode mode, String name) throws Exception {
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
