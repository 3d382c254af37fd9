package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.WireFaultCases.Wire;
import dev.mortise.lock.tck.WireHolds.Mode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

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
 * <ul>
 *   <li>a <em>waiter</em> (A waits behind B's hold) whose grant, after B lets go, comes by the
 *       hand-off or wake-up path (a release message, a watch event, a hand-off, the attempt that
 *       follows), and whose answer is cut off or delivered late ({@link WireWaiterCases}).</li>
 * </ul>
 * In every mode (exclusive, shared, a one-permit semaphore, two keys at once, a leadership
 * campaign; the faults on an explicit lease in every mode but leadership, which runs on the
 * client's renewed lease) and, seeded, in a random mix. The invariants are the property suite's: B never holds while A is valid, tokens of
 * successive holders grow, one {@code onLost} per lost hold, nothing left on the server.
 * A backend test with a wire nests it as {@code @Nested class WireFaults extends WireFaultContract}
 * and names its server's port ({@code wirePort()}); a backend on several servers (a Redis Cluster,
 * Redlock) overrides {@link #wirePorts()} and {@link #backendThrough(Map)} instead, and A talks to
 * each server through a proxy of its own. Nothing skips. In-process backends and H2 do not nest it.
 * A fault strikes the modes at once, each on proxies and a client of its own.
 */
@Tag("wire")
@Timeout(value = 150, unit = TimeUnit.SECONDS)
public abstract class WireFaultContract {

    private final LockBackendContractSuite test;
    private final WireFaultCases cases;
    private final WireWaiterCases waiters;
    /** One wire per mode: the modes of a fault run at once, each A through proxies of its own. */
    private final Map<Mode, Wire> wires = new EnumMap<>(Mode.class);

    protected WireFaultContract(LockBackendContractSuite test) {
        this.test = test;
        this.cases = new WireFaultCases(test);
        this.waiters = new WireWaiterCases(cases, this::waiterGrantedByReply);
    }

    /**
     * The loopback ports of the servers client A's backend talks to, one proxy in front of each:
     * the contract test's {@link LockBackendContractSuite#wirePort()} unless overridden (the nodes
     * of a Redis Cluster, the servers of Redlock).
     */
    protected List<Integer> wirePorts() {
        return List.of(test.wirePort());
    }

    /**
     * A backend as the contract test's {@code newBackend()} makes, except that its connection to each
     * server of {@link #wirePorts()} goes to the proxy port that server is mapped to in
     * {@code proxyPortByServerPort} (in the order of {@link #wirePorts()}). By default the contract
     * test's {@link LockBackendContractSuite#newBackendAt(int)} with the one proxy port.
     */
    protected LockBackend backendThrough(Map<Integer, Integer> proxyPortByServerPort) throws Exception {
        return test.newBackendAt(proxyPortByServerPort.get(test.wirePort()));
    }

    /**
     * How a waiter of this backend learns, once woken, that it is granted: by the answer to the
     * attempt it then sends (true, the default: Redis, ZooKeeper's listing, JDBC), or by the message
     * that woke it (false: a hand-off inside the release, an etcd watch event). The waiter's faults
     * strike that answer.
     */
    protected boolean waiterGrantedByReply() {
        return true;
    }

    @BeforeEach
    void wire() throws Exception {
        for (Mode mode : Mode.values()) {
            WireProxies proxies = new WireProxies(wirePorts());
            LockClient viaProxy;
            try {
                viaProxy = LockClient.builder(backendThrough(proxies.proxyPorts()))
                        .defaultLease(test.watchdogLease()).build();
            } catch (Exception | Error e) {
                proxies.close();
                throw e;
            }
            wires.put(mode, new Wire(proxies, viaProxy));
            // Connections opened and scripts loaded before the fault, so it strikes the acquire itself.
            WireHolds.takeA(viaProxy, mode, test.key("warm"), Duration.ofSeconds(5), null).close();
        }
    }

    @AfterEach
    void unwire() {
        for (Wire wire : wires.values()) {
            wire.proxies().resume();
            wire.proxies().letGo();
            wire.viaProxy().close(); // before the proxies: its releases still reach the server
            wire.proxies().close();
        }
        wires.clear();
    }

    /** A fault in every mode at once, each on a key and wire of its own; the first failure, naming its mode. */
    private void inEveryMode(String fault, ModeCase body) throws Exception {
        inModes(fault, body, Arrays.asList(Mode.values()));
    }

    /** A fault on an explicit lease: in every mode that takes one (not leadership). */
    private void inModesWithExplicitLeases(String fault, ModeCase body) throws Exception {
        inModes(fault, body, Arrays.stream(Mode.values()).filter(Mode::takesExplicitLeases).toList());
    }

    private void inModes(String fault, ModeCase body, List<Mode> modes) throws Exception {
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (Mode mode : modes) {
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    body.run(wires.get(mode), mode, test.key(fault + "-" + mode.name().toLowerCase(Locale.ROOT)));
                } catch (Throwable t) {
                    throw new CompletionException(new AssertionError(fault + " in mode " + mode + ": " + t, t));
                }
            }, WireFaultCases.EXECUTOR));
        }
        for (CompletableFuture<Void> run : runs) {
            try {
                run.get(130, TimeUnit.SECONDS);
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

    @Test
    void aRequestAppliedThenCutOffIsNeverAGrantBesideAnotherNorLeftBehind() throws Exception {
        inEveryMode("cut", cases::appliedThenCut);
    }

    @Test
    void anAnswerHeldPastTheLeaseIsNoGrantOnceAnotherHolds() throws Exception {
        inEveryMode("late", cases::heldPastLease);
    }

    @Test
    void aResendAfterTheLeaseRanOutIsNoGrantBesideTheNextHolder() throws Exception {
        inEveryMode("resent", cases::heldThenCut);
    }

    @Test
    void aGrantOnAResendCountsFromTheFirstSend() throws Exception {
        inModesWithExplicitLeases("first-send", cases::resentWithinLease);
    }

    @Test
    void aHolderWhoseWireWentSilentIsNeverValidBesideTheNextOneAndIsToldOnce() throws Exception {
        inEveryMode("silent", cases::silenced);
    }

    @Test
    void aReleaseWhoseAnswerIsCutOffIsNoLoss() throws Exception {
        inModesWithExplicitLeases("release-cut", cases::releaseCut);
    }

    @Test
    void aWaitersGrantWhoseAnswerIsCutOffIsNeverBesideAnotherNorLeftBehind() throws Exception {
        inEveryMode("wait-cut", waiters::handOffCut);
    }

    @Test
    void aWaitersGrantDeliveredLateIsNeverValidBesideTheNextHolder() throws Exception {
        inEveryMode("wait-late", waiters::handOffLate);
    }

    /** A fault drawn by a seed, in every mode (that takes its lease); the seed is printed to run it again. */
    @Test
    void seededRandomFaults() throws Exception {
        long seed = System.nanoTime();
        System.out.println("WireFaultContract.seededRandomFaults seed=" + seed);
        Random random = new Random(seed);
        List<ModeCase> anyMode = List.of(cases::appliedThenCut, cases::heldPastLease, cases::heldThenCut,
                cases::silenced, waiters::handOffCut, waiters::handOffLate);
        List<ModeCase> explicitLease = List.of(cases::resentWithinLease, cases::releaseCut);
        int drawn = random.nextInt(anyMode.size() + explicitLease.size());
        if (drawn < anyMode.size()) {
            inEveryMode("random", anyMode.get(drawn));
        } else {
            inModesWithExplicitLeases("random", explicitLease.get(drawn - anyMode.size()));
        }
    }
}
