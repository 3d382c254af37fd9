package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.EtcdCluster;
import dev.mortise.lock.tck.server.EtcdServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@link BackendServer} asks etcd through its gRPC gateway (JSON over HTTP): which member
 * leads, and how many lock keys are left. Thread-safe.
 */
final class EtcdGateway {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\":\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(\\d+)\"");
    private static final Pattern COUNT = Pattern.compile("\"count\":\"(\\d+)\"");

    private EtcdGateway() {
    }

    /** The member whose /v3/maintenance/status says it is the leader (waits up to 10 s for one). */
    static EtcdServer leader(EtcdCluster etcd) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            for (EtcdServer member : etcd.members()) {
                String status = post(member.endpoint(), "/v3/maintenance/status", "{}");
                if (status == null) {
                    continue;
                }
                Matcher id = MEMBER_ID.matcher(status);
                Matcher leader = LEADER.matcher(status);
                if (id.find() && leader.find() && id.group(1).equals(leader.group(1))) {
                    return member;
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no etcd member reports itself leader within 10 s");
    }

    /** Keys under the etcd backend's default namespace, asked of the first member that answers. */
    static long lockKeys(List<String> hostPorts) throws Exception {
        Base64.Encoder b64 = Base64.getEncoder();
        // Range [mortise/locks/, mortise/locks0): every key with the prefix ('0' follows '/').
        String body = "{\"key\":\"" + b64.encodeToString("mortise/locks/".getBytes(StandardCharsets.UTF_8))
                + "\",\"range_end\":\"" + b64.encodeToString("mortise/locks0".getBytes(StandardCharsets.UTF_8))
                + "\",\"count_only\":true}";
        for (String hostPort : hostPorts) {
            String reply = post("http://" + hostPort, "/v3/kv/range", body);
            if (reply != null) {
                Matcher count = COUNT.matcher(reply);
                // The gateway leaves a zero count out of the JSON.
                return count.find() ? Long.parseLong(count.group(1)) : 0;
            }
        }
        throw new IllegalStateException("no etcd member answered the orphan check at " + hostPorts);
    }

    /** POSTs JSON to etcd's gRPC gateway; null when the member does not answer. */
    private static String post(String endpoint, String path, String json) throws InterruptedException {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint + path))
                            .timeout(Duration.ofSeconds(2)).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        }
    }
}
