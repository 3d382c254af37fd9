package dev.mortise.samples;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the sample on one machine, in two JVMs, on the default profile's H2 file
 * (the second reaches it through the first's AUTO_SERVER): they share locks and accounts.
 */
class TwoInstancesTests {

    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

    private ConfigurableApplicationContext first;
    private Process second;

    @AfterEach
    void stop() throws Exception {
        if (second != null) {
            second.destroy();
            if (!second.waitFor(20, TimeUnit.SECONDS)) {
                second.destroyForcibly();
            }
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void twoProcessesOnOneH2FileShareLocksAndLoseNoWithdrawal() throws Exception {
        String dataDir = TempDataDir.create();
        first = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
                "--sample.data-dir=" + dataDir, "--sample.demo.enabled=false");
        Http a = new Http(Integer.parseInt(first.getEnvironment().getProperty("local.server.port")));
        Http b = new Http(startSecond(dataDir));

        JsonNode held = a.post("/api/v1/locks/acquire", "{\"lock_key\": \"order:42\", \"client_id\": \"py-1\", "
                + "\"lease_time_ms\": 30000, \"block_time_ms\": 0}").json();
        Http.Response refused = b.post("/api/v1/locks/acquire", "{\"lock_key\": \"order:42\", \"client_id\": "
                + "\"go-7\", \"lease_time_ms\": 30000, \"block_time_ms\": 300}");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(a.post("/api/v1/locks/release", "{\"lock_key\": \"order:42\", \"client_id\": \"py-1\", "
                + "\"lease_id\": \"" + held.get("lease_id").asString() + "\"}").status()).isEqualTo(200);
        Http.Response granted = b.post("/api/v1/locks/acquire", "{\"lock_key\": \"order:42\", \"client_id\": "
                + "\"go-7\", \"lease_time_ms\": 30000, \"block_time_ms\": 0}");
        assertThat(granted.status()).isEqualTo(200);
        assertThat(granted.json().get("fencing_token").asLong()).isGreaterThan(held.get("fencing_token").asLong());

        long before = a.get("/api/accounts/carol").json().get("balance").asLong();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Http instance = t % 2 == 0 ? a : b;
                statuses.add(pool.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < 10; i++) {
                        if (instance.post("/api/accounts/carol/withdraw", "{\"amount\": 1}").status() == 200) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            int succeeded = 0;
            for (Future<Integer> f : statuses) {
                succeeded += f.get();
            }
            assertThat(succeeded).isEqualTo(80);
        } finally {
            pool.shutdownNow();
        }
        assertThat(b.get("/api/accounts/carol").json().get("balance").asLong()).isEqualTo(before - 80);
    }

    /** Starts the sample in a second JVM on the same data directory; returns its port. */
    private int startSecond(String dataDir) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        second = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                SampleApplication.class.getName(), "--server.port=0", "--sample.data-dir=" + dataDir,
                "--sample.demo.enabled=false")
                .redirectErrorStream(true).start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    Matcher m = STARTED.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (Exception e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new IllegalStateException("the second instance exited"));
        }, "second-instance-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return port.get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            synchronized (output) {
                throw new AssertionError("The second instance did not start:\n" + output, e);
            }
        }
    }
}
