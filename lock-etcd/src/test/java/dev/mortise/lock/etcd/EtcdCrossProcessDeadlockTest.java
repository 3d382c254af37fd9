package dev.mortise.lock.etcd;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.CrossProcessDeadlockContract;
import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Deadlocks between JVMs on one real etcd, each owner a jetcd client of its own. */
class EtcdCrossProcessDeadlockTest extends CrossProcessDeadlockContract {

    private static EtcdServer server;

    @BeforeAll
    static void startServer() {
        server = new EtcdServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** What each owner process builds its backend with: etcd at {@code mortise.party.etcd}. */
    public static final class Parties implements Supplier<LockBackend> {
        @Override
        public LockBackend get() {
            return EtcdTestSupport.backend(List.of(System.getProperty("mortise.party.etcd"))).build();
        }
    }

    @Override
    protected Class<? extends Supplier<LockBackend>> factory() {
        return Parties.class;
    }

    @Override
    protected Map<String, String> factoryProperties() {
        return Map.of("mortise.party.etcd", server.endpoint());
    }
}
