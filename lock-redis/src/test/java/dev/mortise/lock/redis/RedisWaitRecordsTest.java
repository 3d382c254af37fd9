package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis backend's wait records (deadlock detection) beyond the contract's {@code WaitRecordStore}:
 * how they sit on the server (one string per holder id under the key prefix, its value the nonce and
 * the text, the record's TTL as the key's own), how few script calls they cost, and how they fail while
 * the server is away. On one real redis-server, through both drivers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisWaitRecordsTest {

    private static RedisServer server;
    private final List<LockBackend> backends = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeBackends() {
        backends.forEach(LockBackend::close);
    }

    private WaitRecords records(RedisLockBackendBuilder builder) {
        LockBackend backend = builder.build();
        backends.add(backend);
        return backend.waitRecords().orElseThrow();
    }

    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void aRecordIsOneStringUnderThePrefixWithTheNonceAndTheServersExpiry(RedisDriver driver) throws Exception {
        WaitRecords records = records(RedisLockBackend.builder().address(server.address()).driver(driver));
        String id = holderId();
        Duration applied = records.publish(List.of(id), "n0nce", "waits for a", Duration.ofSeconds(20).plusNanos(1));
        assertThat(applied).as("PX takes whole milliseconds: rounded up").isEqualTo(Duration.ofMillis(20_001));
        String name = "mortise:waits:{" + id + "}";
        assertThat(RedisKeys.waitRecord("mortise", id)).isEqualTo(name);
        assertThat(server.command("TYPE", name)).isEqualTo("+string");
        assertThat(server.command("GET", name)).isEqualTo("n0nce:waits for a");
        long ttl = Long.parseLong(server.command("PTTL", name).substring(1));
        assertThat(ttl).as("the record's TTL is the key's own").isPositive().isLessThanOrEqualTo(20_001);

        records.publish(List.of(id), "n0nce", "waits for a", Duration.ofMillis(300));
        long rewritten = Long.parseLong(server.command("PTTL", name).substring(1));
        assertThat(rewritten).as("a rewrite sets the TTL anew").isLessThanOrEqualTo(300);
        records.remove(List.of(id), "n0nce");
        assertThat(server.command("EXISTS", name)).isEqualTo(":0");
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void theKeyPrefixSeparatesRecords(RedisDriver driver) throws Exception {
        WaitRecords other = records(RedisLockBackend.builder().address(server.address()).driver(driver)
                .keyPrefix("other"));
        WaitRecords mortise = records(RedisLockBackend.builder().address(server.address()).driver(driver));
        String id = holderId();
        other.publish(List.of(id), "n1", "theirs", Duration.ofSeconds(30));
        assertThat(mortise.read(List.of(id))).isEmpty();
        assertThat(server.command("EXISTS", "other:waits:{" + id + "}")).isEqualTo(":1");
        mortise.publish(List.of(id), "n1", "ours", Duration.ofSeconds(30));
        mortise.remove(List.of(id), "n1");
        assertThat(other.read(List.of(id))).as("a removal under another prefix").containsEntry(id, "theirs");
        other.remove(List.of(id), "n1");
        assertThat(server.command("EXISTS", "other:waits:{" + id + "}")).isEqualTo(":0");
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void publishReadAndRemoveOfManyHolderIdsAreOneScriptCallEach(RedisDriver driver) throws Exception {
        WaitRecords records = records(RedisLockBackend.builder().address(server.address()).driver(driver));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(holderId());
        }
        // connected, and the three scripts cached on the server (a first EVALSHA costs a reload)
        records.publish(ids.subList(0, 1), "warm", "up", Duration.ofSeconds(30));
        records.read(ids.subList(0, 1));
        records.remove(ids.subList(0, 1), "warm");

        long before = RedisMultiKeyBatchTest.scriptCalls(server.port());
        records.publish(ids, "n2", "many", Duration.ofSeconds(30));
        assertThat(records.read(ids)).hasSize(20);
        records.remove(ids, "n2");
        assertThat(RedisMultiKeyBatchTest.scriptCalls(server.port()) - before).isEqualTo(3);
        assertThat(records.read(ids)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void whileTheServerIsAwayEveryCallFailsWithABackendException(RedisDriver driver) throws Exception {
        try (RedisServer gone = new RedisServer()) {
            gone.start();
            WaitRecords records = records(RedisLockBackend.builder().address(gone.address()).driver(driver)
                    .operationTimeout(Duration.ofSeconds(1)));
            String id = holderId();
            records.publish(List.of(id), "n3", "before", Duration.ofSeconds(30));
            gone.stop();
            assertThatThrownBy(() -> records.publish(List.of(id), "n3", "after", Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redis"));
            assertThatThrownBy(() -> records.read(List.of(id)))
                    .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redis"));
            assertThatThrownBy(() -> records.remove(List.of(id), "n3"))
                    .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("redis"));
        }
    }
}
