package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.AfterEach;

/** etcd down at start-up, then started on its port. */
class EtcdUnreachableServerTests extends UnreachableServerTestSupport {

    private final EtcdServer server = new EtcdServer();

    @AfterEach
    void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "etcd";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.etcd.endpoints=" + server.endpoint(), "mortise.lock.etcd.operation-timeout=1s"};
    }

    @Override
    void startServer() {
        server.start();
    }
}
