package dev.mortise.lock.etcd;

import dev.mortise.lock.tck.server.EtcdServer;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A real single-member etcd of the test class's own (it may stop, pause or restart it), an
 * admin client to look at what the server keeps, and the key-space helpers over it.
 */
abstract class EtcdServerPerClass {

    static EtcdServer server;
    static Client admin;
    static EtcdTestSupport etcd;

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
}
