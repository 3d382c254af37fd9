package dev.mortise.lock.tck.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A private {@code etcd} member (Debian package {@code etcd-server}) on free loopback
 * ports: one alone, or one of an {@link EtcdCluster}.
 */
public final class EtcdServer extends ServerProcess {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final Path binary = Binaries.require("etcd", "etcd-server");
    private final String memberName;
    private final int peerPort;
    private String initialCluster;
    private String clusterToken;

    /** A single-member cluster. */
    public EtcdServer() {
        this("etcd0", FreePorts.next(), FreePorts.next());
        this.initialCluster = memberName + "=" + peerUrl();
        this.clusterToken = "mortise-" + dir.getFileName();
    }

    EtcdServer(String memberName, int clientPort, int peerPort) {
        super("etcd-" + memberName, clientPort);
        this.memberName = memberName;
        this.peerPort = peerPort;
    }

    void initialCluster(String initialCluster, String clusterToken) {
        this.initialCluster = initialCluster;
        this.clusterToken = clusterToken;
    }

    public String memberName() {
        return memberName;
    }

    /** {@code http://127.0.0.1:clientPort}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    String peerUrl() {
        return "http://127.0.0.1:" + peerPort;
    }

    @Override
    protected List<String> command() {
        return List.of(binary.toString(), "--name", memberName, "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", endpoint(), "--advertise-client-urls", endpoint(),
                "--listen-peer-urls", peerUrl(), "--initial-advertise-peer-urls", peerUrl(),
                "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
                "--initial-cluster-token", clusterToken,
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "warn");
    }

    @Override
    protected boolean isReady() {
        return healthy();
    }

    /** Whether {@code /health} answers true (the member is up and the cluster has a leader). */
    public boolean healthy() {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint() + "/health"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("\"health\":\"true\"");
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
