package dev.mortise.lock.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free loopback port in front of one server endpoint, for the network faults
 * (there is no {@code tc netem} here): every accepted connection is forwarded to the target by
 * two threads, one per direction.
 *
 * <ul>
 *   <li>{@link #cut()}: every open connection is closed at once (both directions) and new ones
 *       are accepted and closed straight away, until {@link #heal()}: the client sees its
 *       connections reset and every reconnect refused, as behind a dead link.</li>
 *   <li>{@link #delay(long)}: each chunk read in either direction is held that long before it
 *       is written on, in order: added latency per chunk.</li>
 * </ul>
 *
 * <p>Thread-safe; {@link #close()} stops it and closes every connection.
 */
public final class ChaosProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile long delayMillis;
    private volatile boolean closed;

    private ChaosProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "chaos-proxy-" + listener.getLocalPort() + "->" + target.getPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy to {@code host:port}. */
    public static ChaosProxy to(String host, int port) throws IOException {
        return Cleanup.register(new ChaosProxy(new InetSocketAddress(host, port)));
    }

    /** The loopback port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:port}: what replaces the server's address in the client's configuration. */
    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    /** Cuts the link: closes every connection and refuses new ones until {@link #heal()}. */
    public void cut() {
        cut = true;
        sockets.forEach(ChaosProxy::closeQuietly);
    }

    /** Ends a cut: new connections are forwarded again. */
    public void heal() {
        cut = false;
    }

    /** Holds every chunk this long before forwarding it (0: no delay). */
    public void delay(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("chaos proxy: delay must be >= 0 ms, was " + millis);
        }
        this.delayMillis = millis;
    }

    /** Connections open right now (each counts its two sockets once). */
    public int openConnections() {
        return sockets.size() / 2;
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
            if (cut) {
                closeQuietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5000);
            } catch (IOException e) {
                // The server is down: the client sees its connection closed, as it would itself.
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                // Only latency: forward anyway.
            }
            sockets.add(client);
            sockets.add(server);
            pump(client, server, "up");
            pump(server, client, "down");
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = delayMillis;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    if (cut) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // Closed by a cut, by the other side or by close(): end this direction.
            } finally {
                // Both sockets: a half-closed link would look alive to one side.
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "chaos-proxy-" + port() + "-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(ChaosProxy::closeQuietly);
        Cleanup.forget(this);
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }
}
