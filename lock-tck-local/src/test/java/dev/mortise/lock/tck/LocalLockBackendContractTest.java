package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;

/** The in-process backend against the whole contract: several backends on one {@link LocalLockServer}. */
class LocalLockBackendContractTest extends LockBackendContractSuite {

    private final LocalLockServer server = new LocalLockServer("tck");

    /** The in-process server serves permit waiters in arrival order. */
    @Override
    protected boolean fairPermits() {
        return true;
    }

    @Override
    protected LockBackend newBackend() {
        return new LocalLockBackend(server);
    }

    @Override
    protected void breakHold(LockLease lease) {
        server.forget(lease.key());
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        LocalLockServer stopped = new LocalLockServer("stopped");
        stopped.stop();
        return new LocalLockBackend(stopped);
    }

    @Override
    protected int residueOnServer(String key) {
        return server.records(key);
    }

    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) {
        return server.waitRecords(holderIds);
    }
}
