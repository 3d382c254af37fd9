package dev.mortise.lock.spring.cancel;

import dev.mortise.lock.etcd.EtcdLockBackend;
import dev.mortise.lock.etcd.EtcdLockBackendBuilder;
import dev.mortise.lock.etcd.internal.KeySpace;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.StallingProxy;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Cancellation at every point on a real etcd, its acquire request or reply held by a proxy
 * in front of the client port. The marker is the lock's prefix in etcd
 * ({@code mortise/locks/<key>/}): the queueing Txn is the first request that names it (the
 * lease grant and keep-alives carry only lease ids), and jetcd sends protobuf uncompressed,
 * so the key's bytes are in the HTTP/2 DATA frame as they are. jetcd multiplexes every call
 * on one HTTP/2 connection, so while the proxy holds the Txn (or its reply) the starter's
 * client sends (or hears) nothing else either; every hold here is short (well under the 5 s
 * operation timeout and the 10 s transport keep-alive), so that only delays the rest.
 */
class EtcdCancellationTests extends RealServerCancellationTestSupport {

    private static final KeySpace KEYS = new KeySpace(EtcdLockBackendBuilder.DEFAULT_NAMESPACE);

    private static EtcdServer server;
    private static StallingProxy proxy;
    private static EtcdLockBackend other;
    private static Client admin;

    @BeforeAll
    static void start() throws Exception {
        server = new EtcdServer();
        server.start();
        proxy = new StallingProxy(server.port());
        other = EtcdLockBackend.builder().endpoints(server.endpoint()).build();
        admin = Client.builder().endpoints(server.endpoint()).build();
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (other != null) {
            other.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    String backend() {
        return "etcd";
    }

    @Override
    String[] connection(StallingProxy proxy) {
        return new String[] {"mortise.lock.etcd.endpoints=http://" + proxy.hostPort()};
    }

    @Override
    StallingProxy proxy() {
        return proxy;
    }

    @Override
    String acquireMarker(String key) {
        return KEYS.prefix(key).toString(StandardCharsets.UTF_8);
    }

    @Override
    LockBackend otherClient() {
        return other;
    }

    /** Every key under the lock's prefix: the holder's and any waiter's. */
    @Override
    int onServer(String key) throws Exception {
        return (int) admin.getKVClient().get(KEYS.prefix(key), GetOption.builder().isPrefix(true).withCountOnly(true)
                .build()).get(10, TimeUnit.SECONDS).getCount();
    }
}
