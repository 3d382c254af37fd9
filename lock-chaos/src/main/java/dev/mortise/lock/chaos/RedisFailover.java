package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.Binaries;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis master, one replica and one Sentinel (quorum 1, a master is down after 1 s) on
 * loopback ports, for {@link Fault#FAILOVER} and {@link Fault#FAILOVER_WAIT}: the servers run
 * without persistence, as a replicated Redis often does. {@link #failover} pauses the replica
 * (SIGSTOP: it falls behind while the master goes on granting), kills the master (-9), lets the
 * replica go on and waits for Sentinel to promote it, then restarts the old master, which
 * Sentinel turns into the new master's replica: the roles swap each round.
 *
 * <p>Not thread-safe: the controller drives it from one thread.
 */
final class RedisFailover implements AutoCloseable {

    static final String MASTER_NAME = "mortise-chaos";

    private final RedisServer a;
    private final RedisServer b;
    private final Sentinel sentinel;

    RedisFailover() {
        a = new RedisServer();
        a.start();
        b = new RedisServer().args("--replicaof", "127.0.0.1", Integer.toString(a.port()));
        b.start();
        sentinel = new Sentinel(a.port());
        try {
            awaitTrue(() -> info(b.port()).contains("master_link_status:up"), "the replica to sync");
            sentinel.start();
            awaitTrue(() -> String.join(" ", command(sentinel.port(), "SENTINEL", "REPLICAS", MASTER_NAME))
                    .contains(Integer.toString(b.port())), "the Sentinel to see the replica");
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** What a worker passes to {@link Backends#create}: the Sentinel, and {@code ?wait=1} for {@code WAIT}. */
    String target(boolean waitForReplica) {
        return "sentinel://" + MASTER_NAME + "@127.0.0.1:" + sentinel.port() + (waitForReplica ? "?wait=1" : "");
    }

    /** The server Sentinel names master now. */
    RedisServer master() {
        List<String> addr = command(sentinel.port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        int port = Integer.parseInt(addr.get(addr.size() - 1));
        return port == a.port() ? a : b;
    }

    private RedisServer other(RedisServer server) {
        return server == a ? b : a;
    }

    /**
     * One failover with a lagging replica: the replica paused, {@code lagMillis} of grants on the
     * master only, the master killed, the replica continued and promoted. Returns once Sentinel
     * names the new master and the old one is back as its synced replica; the port of the killed
     * master, and the promotion time (epoch millis) in {@code promotedAt[0]}.
     */
    int failover(long lagMillis, long[] promotedAt) throws InterruptedException {
        RedisServer master = master();
        RedisServer replica = other(master);
        replica.pause();
        try {
            Thread.sleep(lagMillis);
            master.kill();
        } finally {
            replica.resume();
        }
        awaitTrue(() -> master() == replica, "Sentinel to promote the replica on port " + replica.port());
        promotedAt[0] = System.currentTimeMillis();
        master.start();
        // Sentinel tells the restarted (empty) old master to replicate the new one.
        awaitTrue(() -> info(master.port()).contains("role:slave")
                && info(master.port()).contains("master_link_status:up"), "the old master to rejoin as a replica");
        return master.port();
    }

    /** Lock keys on the current master. */
    long lockKeys() throws IOException {
        String reply = master().command("EVAL", "return #redis.call('keys', ARGV[1])", "0", "mortise:lock:*");
        return Long.parseLong(reply.substring(1));
    }

    private static String info(int port) {
        return String.join("\n", command(port, "INFO", "replication"));
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                // A server restarting: ask again.
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("failover: waited 60 s for " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + what, e);
            }
        }
    }

    /**
     * One command over a fresh connection; every line of the reply that is not RESP framing (a
     * bulk string's content, a simple string, an integer), flattened.
     */
    static List<String> command(int port, String... args) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
                        .append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            List<String> lines = new ArrayList<>();
            readReply(in, lines);
            return lines;
        } catch (IOException e) {
            throw new IllegalStateException("redis on port " + port + " did not answer " + List.of(args) + ": " + e, e);
        }
    }

    private static void readReply(InputStream in, List<String> lines) throws IOException {
        String line = readLine(in);
        switch (line.charAt(0)) {
            case '*' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    readReply(in, lines);
                }
            }
            case '$' -> {
                int n = Integer.parseInt(line.substring(1));
                if (n >= 0) {
                    byte[] data = in.readNBytes(n + 2);
                    lines.add(new String(data, 0, n, StandardCharsets.UTF_8));
                }
            }
            case '-' -> throw new IOException(line);
            default -> lines.add(line.substring(1));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        if (c == -1 && line.isEmpty()) {
            throw new IOException("connection closed");
        }
        return line.toString();
    }

    @Override
    public void close() {
        sentinel.close();
        b.close();
        a.close();
    }

    /** A Redis Sentinel monitoring one master, quorum 1, down after 1 s. */
    private static final class Sentinel extends ServerProcess {
        private final Path binary = Binaries.require("redis-server", "redis-server");
        private final int masterPort;

        Sentinel(int masterPort) {
            super("redis-sentinel", FreePorts.next());
            this.masterPort = masterPort;
        }

        @Override
        protected void prepare() throws IOException {
            // Sentinel rewrites its configuration file, so it must be a writable file of its own.
            Files.writeString(dir.resolve("sentinel.conf"), String.join("\n",
                    "port " + port, "bind 127.0.0.1", "protected-mode no", "daemonize no", "dir " + dir,
                    "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 1",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 5000", ""), StandardCharsets.UTF_8);
        }

        @Override
        protected List<String> command() {
            return List.of(binary.toString(), dir.resolve("sentinel.conf").toString(), "--sentinel");
        }
    }
}
