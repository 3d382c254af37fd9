package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Free loopback ports, and a check whether one accepts connections.
 *
 * <p>A port handed out is also claimed across JVMs with a file lock under
 * {@code ${java.io.tmpdir}/mortise-ports}, held until this JVM exits, because test modules run
 * in parallel ({@code mvnw -T 2}) and a port one JVM picked but whose server has not bound it
 * yet looks free to the other.
 */
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
            if (HANDED_OUT.add(port) && claimAcrossJvms(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port that was not handed out already");
    }

    /** A free port whose successor is free too (for servers that take two). */
    public static int nextPair() {
        for (int i = 0; i < 50; i++) {
            int port = next();
            if (port < 65535 && isFree(port + 1) && HANDED_OUT.add(port + 1) && claimAcrossJvms(port + 1)) {
                return port;
            }
        }
        throw new IllegalStateException("no pair of free loopback ports found");
    }

    /** File locks this JVM holds on its ports; released by the OS when the JVM exits. */
    private static final List<FileLock> CLAIMS = new CopyOnWriteArrayList<>();

    private static boolean claimAcrossJvms(int port) {
        try {
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "mortise-ports");
            Files.createDirectories(dir);
            FileChannel channel = FileChannel.open(dir.resolve(Integer.toString(port)),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            CLAIMS.add(lock);
            return true;
        } catch (OverlappingFileLockException e) {
            return false;
        } catch (IOException e) {
            // A temp directory we cannot write: fall back to this JVM's own bookkeeping.
            return true;
        }
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
