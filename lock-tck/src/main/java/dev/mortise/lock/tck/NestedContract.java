package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * What a contract suite nested in {@link LockBackendContractSuite} shares: the suite's two
 * clients {@link #a} and {@link #b} (on the backend's real server, as two processes), the suite's
 * hooks under their own names, and the threads a test starts, interrupted and joined after each
 * test so none outlives it.
 */
abstract class NestedContract {

    /** Slack for "promptly" on a shared, noisy machine (the suite's). */
    protected static final Duration SLACK = LockBackendContractSuite.SLACK;

    protected final LockBackendContractSuite contract;
    protected final List<Thread> threads = new CopyOnWriteArrayList<>();
    protected LockClient a;
    protected LockClient b;

    NestedContract(LockBackendContractSuite contract) {
        this.contract = contract;
    }

    @BeforeEach
    void useTheContractsClients() {
        a = contract.a;
        b = contract.b;
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(5000);
        }
    }

    /** Starts a daemon thread named {@code name}, stopped after the test. */
    protected Thread startThread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
        return thread;
    }

    // ---- the suite's hooks and fixture -------------------------------------------------------

    protected String key() {
        return contract.key();
    }

    protected String key(String name) {
        return contract.key(name);
    }

    protected LockClient newClient() throws Exception {
        return contract.newClient();
    }

    protected LockClient track(LockClient client) {
        return contract.track(client);
    }

    protected LockBackend newBackend() throws Exception {
        return contract.newBackend();
    }

    protected Duration shortLease() {
        return contract.shortLease();
    }

    protected Duration watchdogLease() {
        return contract.watchdogLease();
    }

    protected Duration operationTimeout() {
        return contract.operationTimeout();
    }

    protected LockBackend newUnreachableBackend(Duration operationTimeout) throws Exception {
        return contract.newUnreachableBackend(operationTimeout);
    }

    protected void breakHold(LockLease lease) throws Exception {
        contract.breakHold(lease);
    }

    protected int residueOnServer(String key) throws Exception {
        return contract.residueOnServer(key);
    }

    protected static void await(Duration max, BooleanSupplier condition, String what) throws InterruptedException {
        LockBackendContractSuite.await(max, condition, what);
    }
}
