package dev.mortise.lock.bench.run;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

/**
 * Counts the requests a server receives from its clients over a window, with what each
 * server offers: Redis {@code MONITOR} (script-internal commands excluded), ZooKeeper
 * {@code mntr} packets received, etcd's gRPC messages received ({@code /metrics}), MariaDB
 * {@code Questions}. The last three include background traffic (heartbeats, pool checks),
 * which the caller measures separately and subtracts.
 */
abstract class ServerRequests implements AutoCloseable {

    /** Starts counting for {@code group} at {@code endpoint}; null if the group has no counter. */
    static ServerRequests start(String group, String endpoint) throws Exception {
        ServerRequests counter = switch (group) {
            case "redis" -> new Monitor(endpoint);
            case "zookeeper" -> new Polled(() -> zookeeperPackets(endpoint), 0);
            case "etcd" -> new Polled(() -> etcdMessages(endpoint), 0);
            // PostgreSQL's statistics (pg_stat_database) are flushed up to 10 s late: no usable counter.
            case "mariadb" -> new Polled(() -> sqlCount(endpoint, "root", "SHOW GLOBAL STATUS LIKE 'Questions'"), 1);
            default -> null;
        };
        return counter;
    }

    /** Requests since start. */
    abstract long stop() throws Exception;

    @Override
    public void close() throws Exception {
    }

    /** Reads a cumulative counter. */
    private interface Reader {
        long read() throws Exception;
    }

    private static final class Polled extends ServerRequests {
        private final Reader reader;
        private final long ownPerRead;
        private final long start;

        /** @param ownPerRead requests each read itself adds to the counter */
        Polled(Reader reader, long ownPerRead) throws Exception {
            this.reader = reader;
            this.ownPerRead = ownPerRead;
            this.start = reader.read();
        }

        @Override
        long stop() throws Exception {
            return reader.read() - start - ownPerRead;
        }
    }

    private static final class Monitor extends ServerRequests {
        private final RedisMonitor monitor;

        Monitor(String address) throws Exception {
            monitor = new RedisMonitor(address);
        }

        @Override
        long stop() throws Exception {
            long requests = monitor.requests();
            monitor.close();
            return requests;
        }

        @Override
        public void close() throws Exception {
            monitor.close();
        }
    }

    static long zookeeperPackets(String connectString) throws Exception {
        String[] hostPort = connectString.split(",")[0].split(":");
        try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("mntr".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String text = readAll(socket.getInputStream());
            for (String line : text.split("\n")) {
                if (line.startsWith("zk_packets_received")) {
                    return Long.parseLong(line.split("\\s+")[1].trim());
                }
            }
            throw new IllegalStateException("no zk_packets_received in mntr output: " + text);
        }
    }

    static long etcdMessages(String endpoint) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(endpoint + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        double total = 0;
        for (String line : response.body().split("\n")) {
            if (line.startsWith("grpc_server_msg_received_total")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) total;
    }

    static long sqlCount(String url, String user, String sql) throws Exception {
        try (Connection connection = DriverManager.getConnection(url, user, null);
             Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(rows.getMetaData().getColumnCount());
        }
    }

    private static String readAll(InputStream in) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
