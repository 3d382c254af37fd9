package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 leftover: with the ensemble unreachable, the log does not flood. The ZooKeeper
 * tests log through slf4j-simple to {@code System.err}; this test tees it and counts the
 * ERROR lines of Curator's loggers while the server is down for a few seconds under a hold,
 * a waiter and the watchdog.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperOutageLogTest {

    private TestingServer server;
    private final List<LockClient> clients = new ArrayList<>();
    private PrintStream originalErr;

    @AfterEach
    void stop() throws Exception {
        if (originalErr != null) {
            System.setErr(originalErr);
        }
        clients.forEach(LockClient::close);
        server.close();
    }

    private LockClient client() {
        LockClient client = LockClient.builder(ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(1))
                .operationTimeout(Duration.ofSeconds(2)).build())
                .defaultLease(Duration.ofSeconds(3)).build();
        clients.add(client);
        return client;
    }

    /** A stream that copies everything to {@code err} and keeps it for counting. */
    private static final class Tee extends OutputStream {
        private final PrintStream err;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        Tee(PrintStream err) {
            this.err = err;
        }

        @Override
        public synchronized void write(int b) {
            err.write(b);
            kept.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            err.write(b, off, len);
            kept.write(b, off, len);
        }

        synchronized long curatorErrors() {
            return kept.toString(StandardCharsets.UTF_8).lines()
                    .filter(line -> line.contains(" ERROR org.apache.curator")).count();
        }

        synchronized List<String> curatorErrorLines() {
            return kept.toString(StandardCharsets.UTF_8).lines()
                    .filter(line -> line.contains(" ERROR org.apache.curator")).distinct().limit(5).toList();
        }
    }

    @Test
    void anOutageUnderAHoldAndAWaiterDoesNotFloodTheLogWithCuratorErrors() throws Exception {
        server = ZookeeperTestServers.startServer();
        String key = "outage:log";
        LockClient holder = client();
        LockClient waiter = client();
        LockLease lease = holder.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 100; i++) {
                try {
                    waiter.tryAcquire(key, Duration.ofMillis(500)).ifPresent(LockLease::close);
                } catch (RuntimeException expectedWhileDown) {
                    // unreachable: LockBackendException within the operation timeout
                }
            }
        });
        Thread.sleep(500);
        originalErr = System.err;
        Tee tee = new Tee(originalErr);
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
        server.stop();
        Thread.sleep(6_000);
        server.restart();
        await(Duration.ofSeconds(30), () -> {
            try {
                holder.ping();
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        }, "the client to reconnect");
        waiting.cancel(true);
        long errors = tee.curatorErrors();
        System.setErr(originalErr);
        originalErr = null;
        try {
            lease.close();
        } catch (dev.mortise.lock.LockLostException expected) {
            // its 3 s lease ran out locally during the outage
        }
        // Requests in flight when the connection drops are given up with two lines each (a few at most); the flood
        // was two lines for every request sent while it was down, 16 in these 6 s before the fix, growing with time.
        assertThat(errors).as("ERROR lines from Curator during a 6 s outage, e.g. %s", tee.curatorErrorLines())
                .isLessThanOrEqualTo(6);
    }
}
