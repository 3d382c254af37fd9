package dev.mortise.samples;

import dev.mortise.samples.lockservice.OpenLeases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock-service HTTP API (seed 004) on the default profile: every status of acquire, renew
 * and release, and that neither a client id nor a token is enough to touch another's lock.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "sample.demo.enabled=false",
        // The test drives the purge itself, so an expired lease is still in the map when released.
        "sample.lock-service.cleanup-interval=1h",
        "sample.accounts.lock-wait=300ms"})
class LockServiceApiTests {

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        String dir = TempDataDir.create();
        registry.add("sample.data-dir", () -> dir);
    }

    @LocalServerPort
    int port;

    @Autowired
    OpenLeases openLeases;

    private Http http() {
        return new Http(port);
    }

    private static String key() {
        return "inventory_item_" + UUID.randomUUID();
    }

    private static String acquireBody(String key, String client, long leaseMs, long blockMs) {
        return "{\"lock_key\": \"" + key + "\", \"client_id\": \"" + client + "\", \"lease_time_ms\": " + leaseMs
                + ", \"block_time_ms\": " + blockMs + "}";
    }

    private static String renewBody(String key, String client, String leaseId, long leaseMs) {
        return "{\"lock_key\": \"" + key + "\", \"client_id\": \"" + client + "\", \"lease_id\": \"" + leaseId
                + "\", \"lease_time_ms\": " + leaseMs + "}";
    }

    private static String releaseBody(String key, String client, String leaseId) {
        return "{\"lock_key\": \"" + key + "\", \"client_id\": \"" + client + "\", \"lease_id\": \"" + leaseId + "\"}";
    }

    private JsonNode acquired(String key, String client, long leaseMs) throws Exception {
        Http.Response response = http().post("/api/v1/locks/acquire", acquireBody(key, client, leaseMs, 0));
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    @Test
    void acquireGrantsATokenAnUnguessableLeaseIdAndAnExpiry() throws Exception {
        String key = key();
        long before = System.currentTimeMillis();
        JsonNode grant = acquired(key, "worker-az1-02", 10_000);

        assertThat(grant.get("acquired").asBoolean()).isTrue();
        assertThat(grant.get("lock_key").asString()).isEqualTo(key);
        assertThat(grant.get("client_id").asString()).isEqualTo("worker-az1-02");
        assertThat(grant.get("fencing_token").asLong()).isPositive();
        assertThat(grant.get("lease_id").asString()).matches("[0-9a-f]{32}");
        // Expiry is computed from the monotonic clock and reported in wall time; a VM's wall clock
        // can be stepped by time sync between the two readings, so allow a second either way.
        assertThat(grant.get("expires_at_epoch_ms").asLong()).isBetween(before + 8_000, before + 11_000);
    }

    @Test
    void anotherClientGets409AfterBlockingAndThe200OnceReleased() throws Exception {
        String key = key();
        JsonNode first = acquired(key, "a", 10_000);

        long start = System.nanoTime();
        Http.Response busy = http().post("/api/v1/locks/acquire", acquireBody(key, "b", 10_000, 200));
        assertThat(busy.status()).isEqualTo(409);
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(190);
        assertThat(busy.json().get("acquired").asBoolean()).isFalse();
        assertThat(busy.json().has("lease_id")).isFalse();
        assertThat(busy.json().get("error").asString()).contains("block_time_ms=200");

        Http.Response released = http().post("/api/v1/locks/release",
                releaseBody(key, "a", first.get("lease_id").asString()));
        assertThat(released.status()).isEqualTo(200);
        assertThat(released.json().get("released").asBoolean()).isTrue();

        JsonNode second = acquired(key, "b", 10_000);
        assertThat(second.get("fencing_token").asLong()).isGreaterThan(first.get("fencing_token").asLong());
    }

    @Test
    void aBlockedAcquireGetsTheLockWhenTheHolderReleasesInTime() throws Exception {
        String key = key();
        JsonNode first = acquired(key, "a", 10_000);
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(300);
                http().post("/api/v1/locks/release", releaseBody(key, "a", first.get("lease_id").asString()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        releaser.start();
        Http.Response waited = http().post("/api/v1/locks/acquire", acquireBody(key, "b", 10_000, 10_000));
        releaser.join();
        assertThat(waited.status()).isEqualTo(200);
    }

    @Test
    void theSameClientReentersWithTheSameToken() throws Exception {
        String key = key();
        JsonNode outer = acquired(key, "a", 10_000);
        JsonNode inner = acquired(key, "a", 10_000);
        assertThat(inner.get("fencing_token").asLong()).isEqualTo(outer.get("fencing_token").asLong());
        assertThat(inner.get("lease_id").asString()).isNotEqualTo(outer.get("lease_id").asString());
    }

    @Test
    void renewMovesTheExpiryForTheOwnerOnly() throws Exception {
        String key = key();
        JsonNode grant = acquired(key, "a", 1_000);
        String leaseId = grant.get("lease_id").asString();

        Http.Response renewed = http().post("/api/v1/locks/renew", renewBody(key, "a", leaseId, 60_000));
        assertThat(renewed.status()).as(renewed.body()).isEqualTo(200);
        assertThat(renewed.json().get("renewed").asBoolean()).isTrue();
        assertThat(renewed.json().get("fencing_token").asLong()).isEqualTo(grant.get("fencing_token").asLong());
        assertThat(renewed.json().get("expires_at_epoch_ms").asLong())
                .isGreaterThan(grant.get("expires_at_epoch_ms").asLong() + 50_000);

        // Wrong client, wrong key, a guessed lease id: 403, and the lease is untouched.
        assertThat(http().post("/api/v1/locks/renew", renewBody(key, "b", leaseId, 60_000)).status()).isEqualTo(403);
        assertThat(http().post("/api/v1/locks/renew", renewBody(key(), "a", leaseId, 60_000)).status())
                .isEqualTo(403);
        String guessed = UUID.randomUUID().toString().replace("-", "");
        assertThat(http().post("/api/v1/locks/renew", renewBody(key, "a", guessed, 60_000)).status()).isEqualTo(403);
        // Knowing the (sequential) token does not help either: it is not a lease id.
        assertThat(http().post("/api/v1/locks/renew",
                renewBody(key, "a", grant.get("fencing_token").asString(), 60_000)).status()).isEqualTo(403);

        // The renewed lease outlives its first 1 s lease: another client is still refused.
        Thread.sleep(1_200);
        assertThat(http().post("/api/v1/locks/acquire", acquireBody(key, "b", 1_000, 0)).status()).isEqualTo(409);
    }

    @Test
    void renewAfterTheLeaseRanOutIs403AndAnotherClientHasTheLock() throws Exception {
        String key = key();
        JsonNode grant = acquired(key, "a", 150);
        Thread.sleep(400);
        JsonNode taken = acquired(key, "b", 10_000);

        Http.Response late = http().post("/api/v1/locks/renew",
                renewBody(key, "a", grant.get("lease_id").asString(), 10_000));
        assertThat(late.status()).isEqualTo(403);
        assertThat(late.json().get("error").asString()).contains("already ended");
        assertThat(taken.get("fencing_token").asLong()).isGreaterThan(grant.get("fencing_token").asLong());
    }

    @Test
    void releaseRefusesOthersAndUnknownLeasesAndReportsAnExpiredOne() throws Exception {
        String key = key();
        JsonNode grant = acquired(key, "a", 10_000);
        String leaseId = grant.get("lease_id").asString();

        assertThat(http().post("/api/v1/locks/release", releaseBody(key, "b", leaseId)).status()).isEqualTo(403);
        assertThat(http().post("/api/v1/locks/release", releaseBody(key(), "a", leaseId)).status()).isEqualTo(403);
        String guessed = UUID.randomUUID().toString().replace("-", "");
        assertThat(http().post("/api/v1/locks/release", releaseBody(key, "a", guessed)).status()).isEqualTo(404);
        // Still held: the refused releases did nothing.
        assertThat(http().post("/api/v1/locks/acquire", acquireBody(key, "b", 1_000, 0)).status()).isEqualTo(409);

        assertThat(http().post("/api/v1/locks/release", releaseBody(key, "a", leaseId)).status()).isEqualTo(200);
        assertThat(http().post("/api/v1/locks/release", releaseBody(key, "a", leaseId)).status()).isEqualTo(404);

        String expiring = key();
        JsonNode shortGrant = acquired(expiring, "a", 150);
        Thread.sleep(400);
        Http.Response late = http().post("/api/v1/locks/release",
                releaseBody(expiring, "a", shortGrant.get("lease_id").asString()));
        assertThat(late.status()).isEqualTo(403);
        assertThat(late.json().get("error").asString()).contains("had already ended");
    }

    @Test
    void expiredLeasesArePurgedFromTheMap() throws Exception {
        String key = key();
        JsonNode grant = acquired(key, "a", 100);
        Thread.sleep(300);
        assertThat(openLeases.purgeExpired()).isGreaterThanOrEqualTo(1);
        assertThat(openLeases.find(grant.get("lease_id").asString())).isEmpty();
        assertThat(http().post("/api/v1/locks/release", releaseBody(key, "a", grant.get("lease_id").asString()))
                .status()).isEqualTo(404);
    }

    @Test
    void remoteClientsShareLocksWithTheJavaCode() throws Exception {
        // A service in another language holds account:carol; the annotated withdraw waits 300 ms, then gives up.
        JsonNode grant = acquired("account:carol", "python-billing", 10_000);
        Http.Response withdraw = http().post("/api/accounts/carol/withdraw", "{\"amount\": 1}");
        assertThat(withdraw.status()).isEqualTo(503);
        http().post("/api/v1/locks/release", releaseBody("account:carol", "python-billing",
                grant.get("lease_id").asString()));
        Http.Response after = http().post("/api/accounts/carol/withdraw", "{\"amount\": 1}");
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.json().get("lastFencingToken").asLong()).isGreaterThan(grant.get("fencing_token").asLong());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "not json",
            "",
            "[1, 2]",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": \"ten\", \"block_time_ms\": 0}",
            "{\"client_id\": \"c\", \"lease_time_ms\": 1000, \"block_time_ms\": 0}",
            "{\"lock_key\": \"  \", \"client_id\": \"c\", \"lease_time_ms\": 1000, \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"lease_time_ms\": 1000, \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": 1000}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": 0, \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": -5, \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": 3600001, \"block_time_ms\": 0}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": 1000, \"block_time_ms\": -1}",
            "{\"lock_key\": \"k\", \"client_id\": \"c\", \"lease_time_ms\": 1000, \"block_time_ms\": 300001}"})
    void badAcquireRequestsAre400WithAMessage(String body) throws Exception {
        Http.Response response = http().post("/api/v1/locks/acquire", body);
        assertThat(response.status()).as(body + " -> " + response.body()).isEqualTo(400);
        assertThat(response.json().get("error").asString()).isNotBlank();
    }

    @Test
    void overLongKeysAndClientIdsAre400() throws Exception {
        Http.Response longKey = http().post("/api/v1/locks/acquire", acquireBody("k".repeat(600), "c", 1000, 0));
        assertThat(longKey.status()).as(longKey.body()).isEqualTo(400);
        Http.Response longClient = http().post("/api/v1/locks/acquire", acquireBody("k", "c".repeat(300), 1000, 0));
        assertThat(longClient.status()).isEqualTo(400);
        assertThat(longClient.json().get("error").asString()).contains("at most 256");
    }

    @Test
    void badRenewAndReleaseRequestsAre400() throws Exception {
        String key = key();
        String leaseId = acquired(key, "a", 10_000).get("lease_id").asString();
        assertThat(http().post("/api/v1/locks/renew", renewBody(key, "a", leaseId, 0)).status()).isEqualTo(400);
        assertThat(http().post("/api/v1/locks/renew", renewBody(key, "a", leaseId, 3_600_001)).status())
                .isEqualTo(400);
        assertThat(http().post("/api/v1/locks/renew", "{\"lock_key\": \"" + key + "\", \"client_id\": \"a\", "
                + "\"lease_time_ms\": 1000}").status()).isEqualTo(400);
        assertThat(http().post("/api/v1/locks/release", "{\"lock_key\": \"" + key + "\", \"lease_id\": \""
                + leaseId + "\"}").status()).isEqualTo(400);
        assertThat(http().post("/api/v1/locks/release", "{oops").status()).isEqualTo(400);
    }
}
