package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The contract every backend passes against its real server: each numbered point of
 * DESIGN.md "Semantics", as one nested contract class per concern (mutual exclusion,
 * reentrancy, leases, loss, fencing, waiting, ... read-write, multi-key, semaphores,
 * inspection, leadership) that this suite composes, plus the randomized property run. A
 * backend's test extends this class (and is named {@code *ContractTest}, so surefire runs it)
 * and supplies independent backends against one server, a way to break a hold, an unreachable
 * backend, and a look at what the server keeps for a key.
 *
 * <p>Timing assertions here are semantic bounds with wide slack (a wait must not end
 * before its deadline, must end within seconds of it), never speed targets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockBackendContractSuite {

    /** Slack for "promptly" on a shared, noisy machine. */
    protected static final Duration SLACK = Duration.ofSeconds(5);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private String testName;

    /** Client A and client B: two independent clients (as two processes) on one server. */
    protected LockClient a;
    protected LockClient b;

    // ---- what a backend supplies ---------------------------------------------------------

    /** A new backend against the shared test server, independent of earlier ones (as another process). */
    protected abstract LockBackend newBackend() throws Exception;

    /**
     * Whether the backend under test grants shared (read) requests: asked of a fresh backend once
     * per test class, for every suite that has shared cases.
     */
    protected final boolean supportsSharedMode() {
        return BackendCapabilities.SHARED_MODE.ask(getClass(), this::newBackend);
    }

    /**
     * Whether the backend under test keeps semaphores natively ({@link LockBackend#supportsPermits()}):
     * asked of a fresh backend once per test class; selects the semaphore tests that apply.
     */
    protected final boolean supportsPermits() {
        return BackendCapabilities.PERMITS.ask(getClass(), this::newBackend);
    }

    /** Makes the server drop the hold behind {@code lease}, as a server-side expiry or delete would. */
    protected abstract void breakHold(LockLease lease) throws Exception;

    /**
     * A backend pointed at a server that does not answer, with this operation timeout. It
     * may throw {@link LockBackendException} at once, or on first use.
     */
    protected abstract LockBackend newUnreachableBackend(Duration operationTimeout) throws Exception;

    /**
     * How many records the server keeps for {@code key} other than its durable fencing
     * state (a Redis counter, a JDBC row with no owner) — lock entries, waiter nodes,
     * waiter keys. Must be 0 when nobody holds or waits.
     */
    protected abstract int residueOnServer(String key) throws Exception;

    /**
     * Whether the backend's native semaphore serves permit waiters in arrival order (a waiter for many
     * permits is not overtaken by later ones for few). False by default: the fairness test is skipped.
     */
    protected boolean fairPermits() {
        return false;
    }

    /** An explicit lease sure to expire during a test; at least the backend's minimum. */
    protected Duration shortLease() {
        return Duration.ofMillis(500);
    }

    /** The default (renewed) lease of test clients: short, so watchdog tests are quick. */
    protected Duration watchdogLease() {
        return Duration.ofSeconds(1);
    }

    /**
     * The least lease the randomized property run may ask for on this backend (explicit
     * leases, extensions and default leases). Defaults to 100 ms, or to {@link #shortLease()}
     * where that is above 500 ms (a server with a minimum TTL, such as etcd).
     */
    protected Duration propertyLeaseFloor() {
        return shortLease().compareTo(Duration.ofMillis(500)) > 0 ? shortLease() : Duration.ofMillis(100);
    }

    /**
     * The loopback port of the server this test's backends talk to, for the wire-level fault
     * suite ({@link WireFaultContract}), which a backend test with a wire nests as its
     * {@code WireFaults} class; a test that does not nest it never asks.
     */
    protected int wirePort() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " nests the wire suite but names no "
                + "server port: override wirePort()");
    }

    /**
     * A backend as {@link #newBackend()} makes, except that every connection it opens goes to
     * {@code 127.0.0.1:port} (a proxy in front of {@link #wirePort()}) instead of the server.
     */
    protected LockBackend newBackendAt(int port) throws Exception {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " names a wirePort() but cannot "
                + "connect a backend to another port: override newBackendAt(int)");
    }

    /**
     * How many entries of the wait-record store ({@link dev.mortise.lock.spi.WaitRecords}) the server
     * keeps for {@code holderIds}, expired ones it still stores included: keys, nodes or rows. Must be
     * 0 once their records were removed or expired (a backend whose server sweeps expired entries
     * itself counts only what outlives that sweep). Every bundled backend overrides it; the default
     * fails the wait-record tests, naming what to write.
     */
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps wait records but cannot count "
                + "them on its server: override waitRecordsOnServer(Collection)");
    }

    /** The operation timeout given to {@link #newUnreachableBackend}. */
    protected Duration operationTimeout() {
        return Duration.ofSeconds(2);
    }

    // ---- fixture ------------------------------------------------------------------------

    @BeforeEach
    void createClients(TestInfo info) throws Exception {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        a = newClient();
        b = newClient();
    }

    @AfterEach
    void closeClients() throws Exception {
        for (LockClient client : clients) {
            client.close();
        }
    }

    /**
     * Runs {@code body} as a test of its own inside the current one (a test a nested contract
     * generates for what the backend declares): with new clients {@link #a} and {@link #b} and keys
     * named after {@code name}, closing every client opened meanwhile when it ends, and putting the
     * current test's clients back.
     */
    void runAsOwnTest(String name, Executable body) throws Throwable {
        String outerName = testName;
        LockClient outerA = a;
        LockClient outerB = b;
        int opened = clients.size();
        testName = name;
        try {
            a = newClient();
            b = newClient();
            body.execute();
        } finally {
            List<LockClient> mine = new ArrayList<>(clients.subList(opened, clients.size()));
            clients.removeAll(mine);
            testName = outerName;
            a = outerA;
            b = outerB;
            for (LockClient client : mine) {
                client.close();
            }
        }
    }

    /** A new client with the test lease on a new backend. */
    protected LockClient newClient() throws Exception {
        return track(LockClient.builder(newBackend()).defaultLease(watchdogLease()).build());
    }

    protected LockClient track(LockClient client) {
        clients.add(client);
        return client;
    }

    /** A key unique to this test and run, so runs against a long-lived server never meet. */
    protected String key(String name) {
        return "tck:" + testName + ":" + name + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    protected String key() {
        return key("k");
    }

    protected static void await(Duration max, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + max + " waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    // ---- the contract, one nested class per concern -----------------------------------------

    /** The {@link MutualExclusionContract}. */
    @Nested
    class MutualExclusion extends MutualExclusionContract {
        MutualExclusion() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ReentrancyContract}. */
    @Nested
    class Reentrancy extends ReentrancyContract {
        Reentrancy() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link LeaseRenewalContract}. */
    @Nested
    class LeasesAndRenewal extends LeaseRenewalContract {
        LeasesAndRenewal() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link LossNotificationContract}. */
    @Nested
    class LossNotification extends LossNotificationContract {
        LossNotification() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link FencingContract}. */
    @Nested
    class Fencing extends FencingContract {
        Fencing() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link WaitingContract}. */
    @Nested
    class Waiting extends WaitingContract {
        Waiting() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link InterruptionContract}. */
    @Nested
    class InterruptionAndTimeouts extends InterruptionContract {
        InterruptionAndTimeouts() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ReleaseContract}. */
    @Nested
    class Release extends ReleaseContract {
        Release() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ArgumentErrorsContract}. */
    @Nested
    class ArgumentErrors extends ArgumentErrorsContract {
        ArgumentErrors() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ClientCloseContract}. */
    @Nested
    class ClientClose extends ClientCloseContract {
        ClientClose() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link BackendFailureContract}. */
    @Nested
    class BackendFailure extends BackendFailureContract {
        BackendFailure() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link AsyncAcquireContract}. */
    @Nested
    class AsyncAcquire extends AsyncAcquireContract {
        AsyncAcquire() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ClientApiContract}. */
    @Nested
    class ClientApi extends ClientApiContract {
        ClientApi() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The {@link ListenerContract}. */
    @Nested
    class Listeners extends ListenerContract {
        Listeners() {
            super(LockBackendContractSuite.this);
        }
    }

    // ---- the randomized property run --------------------------------------------------------

    /**
     * Random sequences of every operation, over random keys, under injected faults, with the
     * invariants checked continuously: see {@link ValidityPropertySuite} and
     * docs/property-suite.md. The run caps its own time ({@code mortise.property.maxSeconds}) and
     * is stopped five minutes after that cap; the long JUnit timeout only lets long runs
     * ({@code -Dmortise.property.sequences=5000}) reach their own.
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void randomizedSequencesKeepTheContractInvariants() {
        ValidityPropertySuite.Settings settings = ValidityPropertySuite.Settings.fromSystemProperties();
        ValidityPropertySuite suite = new ValidityPropertySuite(new SuitePropertyTarget(this), settings);
        assertTimeoutPreemptively(settings.maxRun().plusMinutes(5), suite::run,
                () -> "the property run did not end within 5 minutes of its cap (re-run with " + settings.rerun() + ")");
    }

    /**
     * The read-write contract ({@link ReadWriteContract}) with this test's clients and hooks: all
     * of it on a backend that supports shared mode, the clear refusal of shared requests on one
     * that does not.
     */
    @Nested
    class ReadWrite extends ReadWriteContract {
        ReadWrite() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The waiting part of the read-write contract ({@link ReadWriteWaitingContract}). */
    @Nested
    class ReadWriteWaiting extends ReadWriteWaitingContract {
        ReadWriteWaiting() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The leader-election contract ({@link LeadershipContract}) against this backend's server. */
    @Nested
    class Leadership extends LeadershipContract {
        Leadership() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The multi-key contract ({@link MultiKeyContract}), on this test's clients and hooks. */
    @Nested
    class MultiKey extends MultiKeyContract {
        MultiKey() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The semaphore contract ({@link SemaphoreContract}), on this test's clients and hooks. */
    @Nested
    class Semaphore extends SemaphoreContract {
        Semaphore() {
            super(LockBackendContractSuite.this);
        }
    }

    /** Deadlock detection ({@link DeadlockContract}) on this backend's server. */
    @Nested
    class Deadlocks extends DeadlockContract {
        Deadlocks() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The wait-record store of deadlock detection ({@link WaitRecordsContract}) on this backend's server. */
    @Nested
    class WaitRecordStore extends WaitRecordsContract {
        WaitRecordStore() {
            super(LockBackendContractSuite.this);
        }
    }

    /** The inspection contract ({@link InspectionContract}), on this test's clients and hooks. */
    @Nested
    class Inspection extends InspectionContract {
        Inspection() {
            super(LockBackendContractSuite.this);
        }
    }
}
