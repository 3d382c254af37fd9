package dev.mortise.lock.redis.internal.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mortise.lock.redis.internal.LuaScript;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptReturn;
import dev.mortise.lock.tck.server.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LettuceTransport#stopped()} for a client the user supplied and then shut down: the
 * background clean-ups ask it before every retry, so it must see the user's shutdown, not only
 * the backend's own close (else they go on failing fast until their deadline).
 */
class LettuceTransportStoppedTest {

    private static final LuaScript ONE = LuaScript.of("one", "return 1");
    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static RedisURI uri() {
        return RedisURI.create("redis://" + server.address().replaceFirst("^redis://", ""));
    }

    private static void use(LettuceTransport transport) throws Exception {
        Object one = transport.send(ScriptCall.of(ONE, ScriptReturn.LONG, List.of()), true).get(10, TimeUnit.SECONDS);
        assertThat(one).isEqualTo(1L);
        transport.subscribe("mortise-stopped-test", message -> { }).confirmed().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aSuppliedClientTheUserShutDownStopsTheTransport() throws Exception {
        RedisClient client = RedisClient.create(uri());
        LettuceTransport transport = new LettuceTransport(client, uri(), false);
        use(transport);
        assertThat(transport.stopped()).isFalse();

        client.shutdownAsync(0, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);

        assertThat(transport.stopped()).as("stopped after the user shut the supplied client down").isTrue();
        transport.close();
    }

    @Test
    void aSuppliedClientOnSharedResourcesTheUserShutDownStopsTheTransport() throws Exception {
        ClientResources shared = DefaultClientResources.create();
        try {
            RedisClient client = RedisClient.create(shared, uri());
            LettuceTransport transport = new LettuceTransport(client, uri(), false);
            use(transport);

            client.shutdownAsync(0, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);

            assertThat(transport.stopped()).as("stopped though the shared resources still run").isTrue();
            transport.close();
        } finally {
            shared.shutdown(0, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRunningClientIsNotStoppedByADroppedConnection() throws Exception {
        RedisClient client = RedisClient.create(uri());
        LettuceTransport transport = new LettuceTransport(client, uri(), false);
        try {
            use(transport);
            // The server drops every client connection; Lettuce reconnects: that is not a stop.
            try (var admin = client.connect()) {
                admin.sync().clientKill(io.lettuce.core.KillArgs.Builder.typeNormal());
            } catch (Exception expected) {
                // the admin connection may be killed too
            }
            assertThat(transport.stopped()).isFalse();
            Thread.sleep(Duration.ofMillis(200).toMillis());
            assertThat(transport.stopped()).isFalse();
        } finally {
            transport.close();
            client.shutdownAsync(0, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }
}
