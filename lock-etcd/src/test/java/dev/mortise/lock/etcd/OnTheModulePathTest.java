package dev.mortise.lock.etcd;

import dev.mortise.lock.architecture.ModuleApplication;
import dev.mortise.lock.tck.server.EtcdServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-etcd as an application on the module path uses it (the tests themselves run on the class
 * path): a lock is taken on a real etcd server through jetcd.
 */
class OnTheModulePathTest {

    /**
     * What jetcd needs at run time: its jars and gRPC's and Vert.x's are automatic modules, which
     * declare no requirements, so an application on the module path names these (here, as root
     * modules).
     */
    private static final String[] CLIENT_AT_RUN_TIME = {"jetcd.api", "jetcd.grpc", "io.grpc.internal",
            "io.grpc.netty", "io.grpc.protobuf", "io.grpc.protobuf.lite", "io.grpc.stub", "io.grpc.util",
            "grpc.context", "com.google.protobuf", "proto.google.common.protos", "com.google.common",
            "dev.failsafe.core", "io.vertx.core", "vertx.grpc", "io.perfmark", "io.netty.codec.http",
            "io.netty.codec.http2", "io.netty.handler.proxy", "io.netty.resolver.dns"};

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleTakesALock() throws Exception {
        try (EtcdServer server = new EtcdServer()) {
            server.start();
            Object answer = ModuleApplication.over(EtcdLockBackend.class)
                    .withProperty("mortise.test.etcd", server.endpoint()).run(dir, Map.of(
                    "module-info.java", "module mortise.app { requires dev.mortise.lock.etcd; exports app; }",
                    "app/App.java", """
                            package app;

                            import dev.mortise.lock.LockClient;
                            import dev.mortise.lock.LockLease;
                            import dev.mortise.lock.etcd.EtcdLockBackend;

                            public class App {
                                public static String run() {
                                    try (LockClient client = LockClient.builder(EtcdLockBackend.builder()
                                                 .endpoints(System.getProperty("mortise.test.etcd")).build()).build();
                                         LockLease lease = client.tryAcquire("orders").orElseThrow()) {
                                        return lease.key() + " held";
                                    }
                                }
                            }
                            """), CLIENT_AT_RUN_TIME);

            assertThat(answer).isEqualTo("orders held");
        }
    }
}
