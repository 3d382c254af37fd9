package dev.mortise.lock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of one server that can be frozen: from then on no byte
 * passes in either direction and no new connection reaches the server, but nothing is
 * closed either. To the client it looks like a partition (or a paused peer), to the server
 * like a silent client, so the server expires the session by its timeout.
 */
final class FreezableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;
    private volatile boolean repliesMuted;
    private volatile boolean closed;

    FreezableProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "freezable-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The connect string of the proxy. */
    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Stops every byte in both directions, for good. */
    void freeze() {
        frozen = true;
    }

    /**
     * From now on the server's bytes are dropped on every connection open now or made while
     * muted (requests still reach the server): the client's requests are applied but their
     * answers lost, and it gives the connection up by its read timeout. Such a connection
     * stays deaf for good; connections made after {@link #unmuteReplies} pass again.
     */
    void muteReplies() {
        repliesMuted = true;
    }

    /** Lets connections made from now on through both ways again. */
    void unmuteReplies() {
        repliesMuted = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                if (frozen) {
                    continue; // held open, never connected through
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                sockets.add(server);
                pump(client, server, false);
                pump(server, client, true);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            boolean deaf = false;
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    deaf |= replies && repliesMuted;
                    if (deaf) {
                        continue;
                    }
                    while (frozen && !closed) {
                        Thread.sleep(50);
                    }
                    if (closed) {
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed: so does the other
            } finally {
                closeQuietly(to);
                closeQuietly(from);
            }
        }, "freezable-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
