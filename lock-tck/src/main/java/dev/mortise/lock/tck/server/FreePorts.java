package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Free loopback ports, and a check whether one accepts connections. */
public final class FreePorts {

    private FreePorts() {
    }

    /** Ports handed out in this JVM: a server launched but not yet bound must not get a twin. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /** A port that was free on 127.0.0.1 a moment ago and was not handed out before in this JVM. */
    public static int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port that was not handed out already");
    }

    /** A free port whose successor is free too (for servers that take two). */
    public static int nextPair() {
        for (int i = 0; i < 50; i++) {
            int port = next();
            if (port < 65535 && isFree(port + 1) && HANDED_OUT.add(port + 1)) {
                return port;
            }
        }
        throw new IllegalStateException("no pair of free loopback ports found");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
    public static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
