package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The starter on a real etcd, by {@code mortise.lock.backend=etcd} and an endpoint. */
class EtcdBackendIntegrationTests extends BackendIntegrationTestSupport {

    private static EtcdServer server;

    @BeforeAll
    static void start() {
        server = new EtcdServer();
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "etcd";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.etcd.endpoints=" + server.endpoint()};
    }
}
