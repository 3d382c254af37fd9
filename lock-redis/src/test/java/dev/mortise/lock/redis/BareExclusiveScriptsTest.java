package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bare calls of {@link BareExclusiveScripts} are what the backend sends: a hold taken by the
 * bare acquire is the backend's own exclusive hold (seen by {@code inspect}, refusing a client),
 * and the bare release frees it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BareExclusiveScriptsTest {

    @Test
    void theBackendReadsTheBareCallsAsItsOwnHold() throws Exception {
        String key = "bare:" + UUID.randomUUID();
        try (RedisServer server = new RedisServer()) {
            server.start();
            try (LockClient client = LockClient.builder(RedisLockBackend.builder().address(server.address()).build())
                    .build()) {
                assertThat(eval(server, BareExclusiveScripts.acquire("mortise", key, "bare-owner",
                        Duration.ofSeconds(30)))).as("granted: {1, token}").isEqualTo("*2");
                assertThat(client.inspect(key).holders()).singleElement()
                        .satisfies(h -> assertThat(h.fencingToken()).isPresent());
                assertThat(client.tryAcquire(key)).as("the bare hold refuses the backend").isEmpty();

                assertThat(eval(server, BareExclusiveScripts.release("mortise", key, "bare-owner"))).isEqualTo(":1");
                assertThat(client.inspect(key).held()).isFalse();
            }
        }
    }

    private static String eval(RedisServer server, BareExclusiveScripts.Call call) throws IOException {
        List<String> command = new ArrayList<>(List.of("EVAL", call.source(), Integer.toString(call.keys().size())));
        command.addAll(call.keys());
        command.addAll(call.args());
        return server.command(command.toArray(String[]::new));
    }
}
