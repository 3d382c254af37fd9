package dev.mortise.lock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The advice a failed script call carries follows what the server said, not one text for every failure. */
class ScriptRunnerMessagesTest {

    private final ScriptRunner runner = new ScriptRunner(null, Duration.ofSeconds(1), Duration.ofSeconds(10), "redis",
            "127.0.0.1:1");

    @Test
    void aMovedSlotIsExplainedAsReshardingNotAsAnUnreachableServer() {
        String message = runner.failure("order:1", "acquire",
                new IllegalStateException("MOVED 1234 127.0.0.1:7002")).getMessage();
        assertThat(message).contains("order:1", "redis", "MOVED 1234").contains("slot")
                .doesNotContain("up and reachable");
    }

    @Test
    void anAclRefusalNamesThePermissionsToGrant() {
        String message = runner.failure("order:1", "acquire",
                new IllegalStateException("NOPERM User app has no permissions to run the 'evalsha' command"))
                .getMessage();
        assertThat(message).contains("order:1", "NOPERM").contains("ACL").doesNotContain("up and reachable");
    }

    @Test
    void anyOtherFailureKeepsTheGeneralAdvice() {
        String message = runner.failure("order:1", "acquire", new IllegalStateException("Connection refused"))
                .getMessage();
        assertThat(message).contains("order:1", "up and reachable", "credentials");
    }
}
