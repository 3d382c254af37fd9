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
 *   <li>{@link #silence()}: a silent partition. Every connection stays open and no byte is
 *       forwarded either way; new connections are accepted (the kernel completes the
 *       handshake on the listener) and not forwarded either. Nothing is closed: neither side
 *       learns anything but that the other has gone quiet. {@link #heal()} then forwards
 *       again, the bytes held meanwhile first and in order (connections made during the
 *       partition are connected to the server then), as TCP delivers retransmitted segments
 *       once a partition shorter than its retransmission timeout (minutes, {@code tcp_retries2})
 *       heals: late requests arrive late rather than never.</li>
 *   <li>{@link #holdReplies()}: the same for the server-to-client direction only - requests
 *       reach the server, replies wait until {@link #heal()} (or until the client dies, when
 *       they are dropped with its connection): a request caught in its round trip.</li>
 * </ul>
 *
 * <p>While bytes are held, the pump holding a chunk reads nothing more from its side: the rest
 * waits in the kernel's socket buffers, with TCP flow control, as on a real link that went
 * dark. {@link #requestsForwarded()} counts client-to-server chunks written to the server, so a
 * controller can tell a request went out (a renewal, a release) while replies are held.
 *
 * <p>Thread-safe; {@link #close()} stops it and closes every connection.
 */
public final class ChaosProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile boolean silent;
    private volatile boolean repliesHeld;
    private final Object flow = new Object();
    private final java.util.concurrent.atomic.AtomicLong requestsForwarded = new java.util.concurrent.atomic.AtomicLong();
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

    /**
     * Ends a cut, a silent partition or held replies: new connections are forwarded again, and
     * after a silence or a hold the bytes held meanwhile are delivered first, in order.
     */
    public void heal() {
        synchronized (flow) {
            cut = false;
            silent = false;
            repliesHeld = false;
            flow.notifyAll();
        }
    }

    /** A silent partition until {@link #heal()}: nothing forwarded either way, nothing closed. */
    public void silence() {
        silent = true;
    }

    /** Replies (server to client) held until {@link #heal()}; requests still reach the server. */
    public void holdReplies() {
        repliesHeld = true;
    }

    /** Client-to-server chunks written to the server so far (one request, or a part of one, each). */
    public long requestsForwarded() {
        return requestsForwarded.get();
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
            if (silent) {
                // Accepted by the kernel, answered by nobody: connected once the partition heals.
                sockets.add(client);
                Thread waiter = new Thread(() -> {
                    if (awaitFlowing(false)) {
                        sockets.remove(client);
                        connect(client);
                    } else {
                        sockets.remove(client);
                        closeQuietly(client);
                    }
                }, "chaos-proxy-" + port() + "-held-connect");
                waiter.setDaemon(true);
                waiter.start();
                continue;
            }
            connect(client);
        }
    }

    /** Connects an accepted client to the server and starts the two pumps. */
    private void connect(Socket client) {
        Socket server = new Socket();
        try {
            server.connect(target, 5000);
        } catch (IOException e) {
            // The server is down: the client sees its connection closed, as it would itself.
            closeQuietly(client);
            closeQuietly(server);
            return;
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

    /**
     * Waits while the direction is held (a silence; for replies also a hold); false when the
     * link was cut or the proxy closed meanwhile (the held bytes are dropped).
     */
    private boolean awaitFlowing(boolean reply) {
        synchronized (flow) {
            while ((silent || reply && repliesHeld) && !cut && !closed) {
                try {
                    flow.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return !cut && !closed;
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        boolean reply = direction.equals("down");
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = delayMillis;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    if (cut || !awaitFlowing(reply)) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (!reply) {
                        requestsForwarded.incrementAndGet();
                    }
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
        synchronized (flow) {
            closed = true;
            flow.notifyAll();
        }
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
