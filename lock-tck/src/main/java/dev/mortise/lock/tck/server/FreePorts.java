package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Free loopback ports, and a check whether one accepts connections. */
public final class FreePorts {

    private FreePorts() {
    }

    /** A port that was free on 127.0.0.1 a moment ago. */
    public static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** A free port whose successor is free too (for servers that take two). */
    public static int nextPair() {
        for (int i = 0; i < 50; i++) {
            int port = next();
            if (port < 65535 && isFree(port + 1)) {
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
