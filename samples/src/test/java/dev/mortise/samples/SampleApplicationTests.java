package dev.mortise.samples;

import dev.mortise.samples.account.HourlyStatementJob;
import dev.mortise.samples.account.ReconciliationJob;
import dev.mortise.samples.demo.DemoReport;
import dev.mortise.samples.demo.DemoRunner;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as a newcomer starts it: the default profile (JDBC locks on an H2 file
 * database with AUTO_SERVER, here in a temp directory), with the start-up demonstration.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTests {

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        String dir = TempDataDir.create();
        registry.add("sample.data-dir", () -> dir);
    }

    @LocalServerPort
    int port;

    @Autowired
    DemoRunner demo;

    @Autowired
    HourlyStatementJob statement;

    @Autowired
    ReconciliationJob reconciliation;

    @Test
    void theOnlyInstanceLeadsTheReconciliationAndTheActuatorShowsIt() throws Exception {
        Http http = new Http(port);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        JsonNode group;
        do {
            group = http.get("/actuator/locks").json().get("leadership").get(0);
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the sample did not lead the reconciliation group: " + group);
            }
            Thread.sleep(50);
        } while (!group.get("state").asString().equals("leader"));
        assertThat(group.get("group").asString()).isEqualTo("reconciliation");
        assertThat(group.get("epoch").asLong()).isPositive();
        int before = reconciliation.runs();
        reconciliation.run();
        assertThat(reconciliation.runs()).isEqualTo(before + 1);
        assertThat(http.get("/actuator/health").json().get("components").get("leadership").get("details")
                .get("reconciliation").get("state").asString()).isEqualTo("leader");
    }

    @Test
    void demonstrationLosesNoUpdateWithTheLockAndFencesTheStaleWrites() throws Exception {
        DemoReport report = demo.lastReport().orElseThrow(() -> new AssertionError("the demo did not run at start-up"));
        int expected = 2 * 4 * 25;

        assertThat(report.backend()).isEqualTo("jdbc");
        assertThat(report.replicas()).contains("client 'jdbc'").contains("client 'replica-b'");
        assertThat(report.locked().operations()).isEqualTo(expected);
        assertThat(report.locked().lostUpdates()).isZero();
        assertThat(report.locked().fencedWrites()).isZero();
        assertThat(report.locked().waitP99()).isGreaterThanOrEqualTo(report.locked().waitP50());
        // Without the lock updates are usually lost, but a machine may happen to serialize the
        // threads: only their honest range is guaranteed.
        assertThat(report.unlocked().operations()).isEqualTo(expected);
        assertThat(report.unlocked().lostUpdates()).isBetween(0L, (long) expected);
        assertThat(report.staleWritesAttempted()).isEqualTo(3);
        assertThat(report.staleWritesRejected()).isEqualTo(3);
        assertThat(report.table()).contains("lost updates").contains("3 of 3 rejected");

        JsonNode served = new Http(port).get("/api/demo").json();
        assertThat(served.get("locked").get("lostUpdates").asLong()).isZero();
    }

    @Test
    void businessEndpointsLockAndFenceEachAccount() throws Exception {
        Http http = new Http(port);
        Http.Response withdrawn = http.post("/api/accounts/alice/withdraw", "{\"amount\": 100}");
        assertThat(withdrawn.status()).isEqualTo(200);
        long token = withdrawn.json().get("lastFencingToken").asLong();
        assertThat(token).isPositive();

        Http.Response deposited = http.post("/api/accounts/alice/deposit", "{\"amount\": 40}");
        assertThat(deposited.status()).isEqualTo(200);
        assertThat(deposited.json().get("lastFencingToken").asLong()).isGreaterThan(token);

        Http.Response transfer = http.post("/api/transfers", "{\"from\": \"bob\", \"to\": \"carol\", \"amount\": 5}");
        assertThat(transfer.status()).isEqualTo(200);

        assertThat(http.post("/api/accounts/alice/withdraw", "{\"amount\": 99999999}").status()).isEqualTo(409);
        assertThat(http.post("/api/accounts/nobody/withdraw", "{\"amount\": 1}").status()).isEqualTo(404);
        assertThat(http.post("/api/accounts/alice/withdraw", "{}").status()).isEqualTo(400);
        assertThat(http.get("/api/accounts").json().size()).isGreaterThanOrEqualTo(6);
    }

    @Test
    void actuatorShowsLocksHealthAndAcquireMetrics() throws Exception {
        Http http = new Http(port);
        // The acquire timer is recorded by @DistributedLock calls: make one.
        assertThat(http.post("/api/accounts/bob/deposit", "{\"amount\": 1}").status()).isEqualTo(200);

        Http.Response locks = http.get("/actuator/locks");
        assertThat(locks.status()).isEqualTo(200);
        assertThat(locks.json().get("defaultBackend").asString()).isEqualTo("jdbc");
        assertThat(locks.json().get("backends").toString()).contains("replica-b");

        Http.Response health = http.get("/actuator/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().get("status").asString()).isEqualTo("UP");
        assertThat(health.json().get("components").get("locks").get("status").asString()).isEqualTo("UP");

        Http.Response metric = http.get("/actuator/metrics/mortise.lock.acquire");
        assertThat(metric.status()).isEqualTo(200);
        assertThat(metric.body()).contains("\"account\"").contains("acquired");
    }

    @Test
    void theHourlyJobSkipsWhileAnotherInstanceRunsIt() throws Exception {
        Http http = new Http(port);
        // Another instance (here: a remote client of the lock API) is running the statement.
        Http.Response held = http.post("/api/v1/locks/acquire", "{\"lock_key\": \"hourly-statement\", "
                + "\"client_id\": \"instance-2\", \"lease_time_ms\": 60000, \"block_time_ms\": 0}");
        assertThat(held.status()).isEqualTo(200);
        int before = statement.runs();
        statement.run();
        assertThat(statement.runs()).isEqualTo(before);

        assertThat(http.post("/api/v1/locks/release", "{\"lock_key\": \"hourly-statement\", "
                + "\"client_id\": \"instance-2\", \"lease_id\": \"" + held.json().get("lease_id").asString()
                + "\"}").status()).isEqualTo(200);
        statement.run();
        assertThat(statement.runs()).isEqualTo(before + 1);
    }
}
