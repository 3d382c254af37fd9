package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * What {@link LockBackendContractSuite} stands on: the hooks a backend's contract test supplies (its
 * backends, a way to break a hold, an unreachable backend, what the server keeps), their defaults,
 * and the fixture every nested contract shares — clients {@link #a} and {@link #b} (two processes on
 * one server), keys unique to the test and run, and {@link #await}. Extend the suite, not this.
 */
public abstract class ContractFixture {


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

    /**
     * Whether this contract test runs the deadlock suite's seeded property run
     * ({@link DeadlockContract}): true, but a variant of a backend whose base test already runs it
     * (another driver or mode of the same store and inspection) may answer false to save CI time.
     */
    protected boolean deadlockPropertyRun() {
        return true;
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
}
