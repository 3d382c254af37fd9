package dev.mortise.lock.tck;

import dev.mortise.lock.tck.server.Binaries;
import dev.mortise.lock.tck.server.EtcdCluster;
import dev.mortise.lock.tck.server.EtcdServer;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.MissingServerException;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The launchers start real servers, and stop, kill, pause and restart them. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerLaunchersTest {

    @Test
    void missingBinaryFailsWithTheInstallCommand() {
        assertThatThrownBy(() -> Binaries.require("no-such-server-binary", "no-such-package"))
                .isInstanceOf(MissingServerException.class)
                .hasMessageContaining("apt-get install -y no-such-package");
    }

    @Test
    void redisStartsPausesResumesKillsAndRestarts() throws Exception {
        try (RedisServer redis = new RedisServer()) {
            redis.start();
            assertThat(redis.command("SET", "k", "v")).isEqualTo("+OK");
            assertThat(redis.command("GET", "k")).isEqualTo("v");

            redis.pause();
            CompletableFuture<String> during = CompletableFuture.supplyAsync(() -> {
                try {
                    return redis.command("PING");
                } catch (IOException e) {
                    return "timeout";
                }
            });
            Thread.sleep(500);
            assertThat(during).as("a paused server does not answer").isNotDone();
            redis.resume();
            assertThat(during.get(10, TimeUnit.SECONDS)).isEqualTo("+PONG");

            redis.kill();
            assertThat(FreePorts.accepts(redis.port())).isFalse();
            redis.start();
            assertThat(redis.command("GET", "k")).as("no persistence: a restart forgets").isEqualTo("$-1");
        }
    }

    @Test
    void persistentRedisKeepsDataAcrossRestart() throws Exception {
        try (RedisServer redis = new RedisServer().persistent()) {
            redis.start();
            redis.command("SET", "k", "v");
            redis.restart();
            assertThat(redis.command("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void etcdStartsAndRestarts() {
        try (EtcdServer etcd = new EtcdServer()) {
            etcd.start();
            assertThat(etcd.healthy()).isTrue();
            etcd.restart();
            assertThat(etcd.healthy()).isTrue();
        }
    }

    @Test
    void etcdClusterSurvivesOneMemberKilled() throws InterruptedException {
        try (EtcdCluster cluster = new EtcdCluster(3).start()) {
            cluster.members().get(0).kill();
            // If the killed member led, the others first elect a leader (election timeout 1 s).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(cluster.members().get(1).healthy() && cluster.members().get(2).healthy())
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(cluster.members().get(1).healthy() && cluster.members().get(2).healthy())
                    .as("the two surviving members have a leader").isTrue();
            cluster.members().get(0).start();
            assertThat(cluster.members().get(0).healthy()).isTrue();
        }
    }

    @Test
    void postgresStartsStopsAndRestarts() {
        try (PostgresServer postgres = new PostgresServer()) {
            postgres.start();
            assertThat(postgres.jdbcUrl()).contains(":" + postgres.port() + "/");
            postgres.stop();
            assertThat(postgres.isRunning()).isFalse();
            postgres.start();
            assertThat(postgres.isRunning()).isTrue();
        }
    }

    @Test
    void mariadbStartsAndRestarts() {
        try (MariaDbServer mariadb = new MariaDbServer()) {
            mariadb.start();
            mariadb.restart();
            assertThat(mariadb.isRunning()).isTrue();
        }
    }
}
