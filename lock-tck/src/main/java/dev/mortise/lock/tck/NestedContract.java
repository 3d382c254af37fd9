package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a contract suite nested in {@link LockBackendContractTest} shares: the contract test's two
 * clients {@link #a} and {@link #b} (on the backend's real server, as two processes), and the
 * threads a test starts, interrupted and joined after each test so none outlives it.
 */
abstract class NestedContract {

    protected final LockBackendContractTest contract;
    protected final List<Thread> threads = new CopyOnWriteArrayList<>();
    protected LockClient a;
    protected LockClient b;

    NestedContract(LockBackendContractTest contract) {
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
}
