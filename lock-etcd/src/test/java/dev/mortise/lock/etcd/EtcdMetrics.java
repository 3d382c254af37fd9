package dev.mortise.lock.etcd;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads one number from an etcd member's Prometheus {@code /metrics} page. */
final class EtcdMetrics {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private EtcdMetrics() {
    }

    /** The value of the un-labelled metric {@code name} at {@code endpoint}, or -1 if the member does not answer. */
    static double read(String endpoint, String name) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint + "/metrics"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            for (String line : response.body().split("\n")) {
                if (line.startsWith(name + " ")) {
                    return Double.parseDouble(line.substring(name.length() + 1).trim());
                }
            }
            throw new AssertionError("metric " + name + " not found at " + endpoint);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** {@code grpc_server_msg_received_total} by gRPC method (every request, stream messages included). */
    static java.util.Map<String, Long> messagesReceived(String endpoint) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint + "/metrics"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            java.util.Map<String, Long> counts = new java.util.TreeMap<>();
            for (String line : response.body().split("\n")) {
                if (line.startsWith("grpc_server_msg_received_total{")) {
                    int at = line.indexOf("grpc_method=\"") + "grpc_method=\"".length();
                    String method = line.substring(at, line.indexOf('"', at));
                    long value = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
                    counts.merge(method, value, Long::sum);
                }
            }
            return counts;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static boolean isLeader(String endpoint) {
        return read(endpoint, "etcd_server_is_leader") == 1;
    }

    /** Raft proposals this member has committed: every write (put, delete, lease grant, lease revoke). */
    static long proposalsCommitted(String endpoint) {
        return (long) read(endpoint, "etcd_server_proposals_committed_total");
    }
}
