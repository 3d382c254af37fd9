package dev.mortise.lock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port in front of one redis-server (adapted from lock-chaos's
 * {@code ChaosProxy}), for reproducing a request whose reply comes late: {@link #stall(String, long)}
 * holds the next client-to-server chunk that contains a marker (a script's SHA-1) for a while
 * before forwarding it. Only that connection waits (its later bytes queue behind, in order);
 * every other pooled connection flows freely, so a command sent on another connection meanwhile
 * reaches the server first, exactly as a slow link or a stalled socket buffer would let it.
 */
final class StallingProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger stallsLeft = new AtomicInteger();
    private final AtomicInteger stallsDone = new AtomicInteger();
    private final AtomicInteger dropsLeft = new AtomicInteger();
    private final AtomicInteger drops = new AtomicInteger();
    private volatile byte[] dropMarker;
    private volatile byte[] marker;
    private volatile long stallMillis;
    private volatile boolean closed;

    StallingProxy(int port) throws IOException {
        this.target = new InetSocketAddress("127.0.0.1", port);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "stalling-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    String address() {
        return "redis://127.0.0.1:" + port();
    }

    /** The next chunk (on any connection) containing {@code marker} is held {@code millis} before it is sent on. */
    void stall(String marker, long millis) {
        this.marker = marker.getBytes(StandardCharsets.UTF_8);
        this.stallMillis = millis;
        stallsLeft.set(1);
    }

    /**
     * The next chunk containing {@code marker} is thrown away and its connection closed: the
     * command never reaches the server, and the client sees the connection reset.
     */
    void drop(String marker) {
        this.dropMarker = marker.getBytes(StandardCharsets.UTF_8);
        dropsLeft.set(1);
    }

    /** How many chunks were dropped. */
    int drops() {
        return drops.get();
    }

    /** How many stalled chunks have been forwarded since the proxy started. */
    int stallsDone() {
        return stallsDone.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            pump(client, server, true);
            pump(server, client, false);
        }
    }

    private void pump(Socket from, Socket to, boolean upstream) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (upstream && dropsLeft.get() > 0 && contains(buffer, n, dropMarker)
                            && dropsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0) {
                        drops.incrementAndGet();
                        break;
                    }
                    boolean stalled = upstream && stallsLeft.get() > 0 && contains(buffer, n, marker)
                            && stallsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0;
                    if (stalled) {
                        Thread.sleep(stallMillis);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (stalled) {
                        stallsDone.incrementAndGet();
                    }
                }
            } catch (IOException | InterruptedException e) {
                // closed by either side or by close()
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "stalling-proxy-" + port() + (upstream ? "-up" : "-down"));
        thread.setDaemon(true);
        thread.start();
    }

    private static boolean contains(byte[] buffer, int length, byte[] wanted) {
        if (wanted == null) {
            return false;
        }
        outer:
        for (int i = 0; i + wanted.length <= length; i++) {
            for (int j = 0; j < wanted.length; j++) {
                if (buffer[i + j] != wanted[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(java.io.Closeable socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(StallingProxy::closeQuietly);
    }
}
