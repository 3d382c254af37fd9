package dev.mortise.samples;

import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.samples.demo.DemoReport;
import dev.mortise.samples.demo.DemoRunner;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each profile against a real server that the test starts on a free loopback port: only the
 * profile and the host/port placeholders it documents change. The sample starts, its
 * demonstration loses no update under the lock and fences the stale writes, and an annotated
 * withdrawal and the health endpoint work on that backend.
 */
class BackendProfilesIntegrationTests {

    @Test
    void redis() throws Exception {
        try (RedisServer server = new RedisServer()) {
            server.start();
            check("redis", "redis", "REDIS_PORT=" + server.port());
        }
    }

    @Test
    void etcd() throws Exception {
        try (EtcdServer server = new EtcdServer()) {
            server.start();
            check("etcd", "etcd", "ETCD_PORT=" + server.port());
        }
    }

    @Test
    void zookeeper() throws Exception {
        try (TestingServer server = new TestingServer()) {
            check("zookeeper", "zookeeper", "ZOOKEEPER_PORT=" + server.getPort());
        }
    }

    @Test
    void postgres() throws Exception {
        try (PostgresServer server = new PostgresServer()) {
            server.start();
            check("postgres", "jdbc", "POSTGRES_PORT=" + server.port(), "POSTGRES_DB=postgres",
                    "POSTGRES_USER=" + server.user(), "POSTGRES_PASSWORD=");
        }
    }

    @Test
    void mariadb() throws Exception {
        try (MariaDbServer server = new MariaDbServer()) {
            server.start();
            check("mariadb", "jdbc", "MARIADB_PORT=" + server.port(), "MARIADB_USER=" + server.user(),
                    "MARIADB_PASSWORD=");
        }
    }

    private static void check(String profile, String backend, String... connection) throws Exception {
        // Command-line arguments, as a user passes them: they win over application.properties.
        String[] args = new String[connection.length + 5];
        args[0] = "--spring.profiles.active=" + profile;
        args[1] = "--server.port=0";
        args[2] = "--sample.data-dir=" + TempDataDir.create();
        args[3] = "--sample.demo.threads-per-replica=2";
        args[4] = "--sample.demo.operations-per-thread=10";
        for (int i = 0; i < connection.length; i++) {
            args[5 + i] = "--" + connection[i];
        }
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
                .run(args)) {
            assertThat(context.getEnvironment().getProperty("spring.datasource.url")).doesNotContain("/tmp/mortise-sample/");
            DemoReport report = context.getBean(DemoRunner.class).lastReport().orElseThrow();
            assertThat(report.backend()).isEqualTo(backend);
            assertThat(report.replicas()).contains("client 'replica-b'");
            assertThat(report.locked().operations()).isEqualTo(40);
            assertThat(report.locked().lostUpdates()).isZero();
            assertThat(report.staleWritesRejected()).isEqualTo(3);

            Http http = new Http(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")));
            Http.Response withdrawn = http.post("/api/accounts/alice/withdraw", "{\"amount\": 1}");
            assertThat(withdrawn.status()).as(withdrawn.body()).isEqualTo(200);
            JsonNode health = http.get("/actuator/health").json();
            assertThat(health.get("components").get("locks").get("components").get(backend).get("status")
                    .asString()).isEqualTo("UP");
        }
    }
}
