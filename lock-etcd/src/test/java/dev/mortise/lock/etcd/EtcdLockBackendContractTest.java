package dev.mortise.lock.etcd;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractSuite;
import dev.mortise.lock.tck.server.EtcdServer;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.List;

/**
 * The whole contract against a real single-member etcd. The launcher's 1 s election
 * timeout makes etcd's minimum lease TTL 2 s (1.5 election timeouts, rounded up), so the
 * short and watchdog leases are 2 s and 3 s.
 */
class EtcdLockBackendContractTest extends LockBackendContractSuite {

    private static EtcdServer server;
    private static Client admin;
    private static EtcdTestSupport etcd;

    @BeforeAll
    static void startServer() {
        server = new EtcdServer();
        server.start();
        admin = Client.builder().endpoints(server.endpoint()).build();
        etcd = new EtcdTestSupport(admin);
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockBackend newBackend() {
        return EtcdTestSupport.backend(List.of(server.endpoint())).build();
    }

    @Override
    protected int wirePort() {
        return server.port();
    }

    @Override
    protected LockBackend newBackendAt(int port) {
        return EtcdTestSupport.backend(List.of("http://127.0.0.1:" + port)).build();
    }

    @Override
    protected void breakHold(LockLease lease) throws Exception {
        etcd.revokeLeaseOf(lease);
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return EtcdTestSupport.unreachable(operationTimeout);
    }

    @Override
    protected int residueOnServer(String key) throws Exception {
        return etcd.keysOf(key).size();
    }

    /** The keys under each holder id's wait-record prefix (a lease with nothing on it is not an entry: see EtcdWaitRecordsTest). */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        return etcd.waitRecordKeys(holderIds);
    }

    /** Permit waiters are served in create-revision order (docs/etcd.md, "Semaphores"). */
    @Override
    protected boolean fairPermits() {
        return true;
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofSeconds(2);
    }

    @Override
    protected Duration watchdogLease() {
        return Duration.ofSeconds(3);
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy to {@link #wirePort()}, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(EtcdLockBackendContractTest.this);
        }

        /** A woken waiter is granted on its predecessor's delete event (a look at the queue only if its lease needs a keep-alive). */
        @Override
        protected boolean waiterGrantedByReply() {
            return false;
        }
    }
}
