package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Redlock's wait records beyond the contract: a record counts only where a majority of the answering
 * nodes hold the same text, a write counts on a majority, and fewer than a majority answering fails.
 * Five real redis-servers started afresh for each test, through both drivers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockWaitRecordsTest {

    private final List<RedisServer> servers = new ArrayList<>();
    private LockBackend backend;

    @BeforeEach
    void startServers() {
        for (int i = 0; i < 5; i++) {
            servers.add(new RedisServer());
            servers.get(i).start(); // one at a time: FreePorts could hand out a port twice meanwhile
        }
    }

    @AfterEach
    void stopServers() {
        if (backend != null) {
            backend.close();
        }
        servers.forEach(RedisServer::close);
    }

    private WaitRecords records(RedisDriver driver) {
        backend = RedlockBackend.builder().driver(driver)
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new))
                .nodeTimeout(Duration.ofSeconds(1)).build();
        return backend.waitRecords().orElseThrow();
    }

    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    /** Stores {@code value} as the record of {@code id} on the servers numbered {@code nodes}, as a node keeps it. */
    private void storeOn(String id, String value, int... nodes) throws Exception {
        for (int node : nodes) {
            assertThat(servers.get(node).command("SET", RedisKeys.waitRecord("mortise", id), value, "PX", "30000"))
                    .isEqualTo("+OK");
        }
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void aRecordCountsOnlyWhereAMajorityHoldsTheSameText(RedisDriver driver) throws Exception {
        WaitRecords records = records(driver);
        String minority = holderId();
        String split = holderId();
        String agreed = holderId();
        storeOn(minority, "n1:stale", 0, 1);
        storeOn(split, "n1:first", 0, 1);
        storeOn(split, "n2:second", 2, 3);
        storeOn(agreed, "n1:kept", 0, 2, 4);
        storeOn(agreed, "n2:other", 1);
        Map<String, String> read = records.read(List.of(minority, split, agreed));
        assertThat(read).as("two of five is no evidence, nor two against two").containsExactly(Map.entry(agreed, "kept"));
        records.remove(List.of(agreed), "n1");
        assertThat(records.read(List.of(agreed))).isEmpty();
        assertThat(servers.get(1).command("GET", RedisKeys.waitRecord("mortise", agreed)))
                .as("another nonce's record stays").isEqualTo("n2:other");
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void aMinorityAwayCostsNothingAndAMajorityAwayFailsEveryCall(RedisDriver driver) throws Exception {
        WaitRecords records = records(driver);
        String id = holderId();
        records.publish(List.of(id), "n1", "waits", Duration.ofSeconds(30));
        servers.get(0).stop();
        servers.get(1).stop();
        String later = holderId();
        records.publish(List.of(later), "n1", "waits too", Duration.ofSeconds(30));
        storeOn(id, "n2:changed", 4);
        assertThat(records.read(List.of(id, later))).as("two of the three that answered agree")
                .containsOnly(Map.entry(id, "waits"), Map.entry(later, "waits too"));
        storeOn(later, "n2:changed", 3, 4);
        assertThat(records.read(List.of(later))).as("two of the three that answered hold another text")
                .containsOnly(Map.entry(later, "changed"));
        records.remove(List.of(id), "n1");
        assertThat(records.read(List.of(id))).isEmpty();

        servers.get(2).stop();
        assertThatThrownBy(() -> records.read(List.of(id)))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redlock"))
                .hasMessageContaining("only 2 of 5");
        assertThatThrownBy(() -> records.publish(List.of(id), "n3", "x", Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redlock"));
        assertThatThrownBy(() -> records.remove(List.of(id), "n3"))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redlock"));
    }
}
