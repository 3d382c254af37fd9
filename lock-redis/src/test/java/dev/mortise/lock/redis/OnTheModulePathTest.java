package dev.mortise.lock.redis;

import dev.mortise.lock.architecture.ModuleApplication;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-redis as an application on the module path uses it (the tests themselves run on the class
 * path): a lock is taken on a real Redis server through each driver, Redisson and Lettuce.
 */
class OnTheModulePathTest {

    /**
     * What Redisson and Lettuce need at run time: their jars are automatic modules, which declare
     * no requirements, so an application on the module path names these (here, as root modules).
     */
    private static final String[] CLIENTS_AT_RUN_TIME = {"lettuce.core", "redis.clients.authentication.core",
            "io.netty.codec", "io.netty.codec.compression", "io.netty.codec.dns",
            "io.netty.handler", "io.netty.resolver", "io.netty.resolver.dns",
            "io.netty.transport", "io.netty.transport.unix.common", "cache.api", "reactor.core",
            "org.reactivestreams", "io.reactivex.rxjava3", "com.esotericsoftware.kryo", "jodd.util",
            "net.bytebuddy", "org.yaml.snakeyaml", "org.objenesis"};

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleTakesALockThroughEachDriver() throws Exception {
        try (RedisServer server = new RedisServer()) {
            server.start();
            Object answer = ModuleApplication.over(RedisLockBackend.class)
                    .withProperty("mortise.test.redis", server.address()).run(dir, Map.of(
                    "module-info.java", "module mortise.app { requires dev.mortise.lock.redis; exports app; }",
                    "app/App.java", """
                            package app;

                            import dev.mortise.lock.LockClient;
                            import dev.mortise.lock.LockLease;
                            import dev.mortise.lock.redis.RedisDriver;
                            import dev.mortise.lock.redis.RedisLockBackend;

                            public class App {
                                public static String run() {
                                    StringBuilder held = new StringBuilder();
                                    for (RedisDriver driver : RedisDriver.values()) {
                                        try (LockClient client = LockClient.builder(RedisLockBackend.builder()
                                                     .address(System.getProperty("mortise.test.redis"))
                                                     .driver(driver).build()).build();
                                             LockLease lease = client.tryAcquire("orders").orElseThrow()) {
                                            held.append(driver).append(": ").append(lease.key()).append(" held. ");
                                        }
                                    }
                                    return held.toString().strip();
                                }
                            }
                            """), CLIENTS_AT_RUN_TIME);

            assertThat(answer).isEqualTo("REDISSON: orders held. LETTUCE: orders held.");
        }
    }
}
