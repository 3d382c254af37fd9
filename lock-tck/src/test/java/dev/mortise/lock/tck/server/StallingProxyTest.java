package dev.mortise.lock.tck.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link StallingProxy} in front of a line echo server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StallingProxyTest {

    private final ServerSocket echo;
    private final StallingProxy proxy;

    StallingProxyTest() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread server = new Thread(this::serveEcho, "echo-server");
        server.setDaemon(true);
        server.start();
        proxy = new StallingProxy(echo.getLocalPort());
    }

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    /**
     * A test lets a held reply go and at once arms the next hold (as RedisLockBackendTest's fair stale
     * hand-off does: holdReply, awaitHeld, letGo, holdIncoming). The test thread, woken by the hold,
     * may run all that before the pump that holds the reply reads its release: the reply must go all
     * the same, not wait for the next hold's letGo (a Redis waiter saw its heartbeat unanswered for
     * the operation timeout, about 1 run in 5).
     */
    @Test
    void aHeldReplyLetGoComesEvenIfTheNextHoldIsArmedBeforeThePumpWakes() throws Exception {
        proxy.afterHeld = () -> {
            proxy.letGo();
            proxy.holdIncoming("never-sent");
        };
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.setSoTimeout((int) TimeUnit.SECONDS.toMillis(10));
            proxy.holdReply("ping");
            client.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            assertThat(proxy.awaitHeld(java.time.Duration.ofSeconds(10))).as("the reply held").isTrue();
            assertThat(readLine(client)).as("the reply let go, not kept for the next hold's letGo")
                    .isEqualTo("ping");
        }
    }

    private static String readLine(Socket client) throws IOException {
        StringBuilder line = new StringBuilder();
        InputStream in = client.getInputStream();
        try {
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                line.append((char) c);
            }
        } catch (SocketTimeoutException e) {
            return "(no reply in 10 s: " + line + ")";
        }
        return line.toString();
    }

    private void serveEcho() {
        while (!echo.isClosed()) {
            try {
                Socket socket = echo.accept();
                Thread pump = new Thread(() -> {
                    try (socket; InputStream in = socket.getInputStream()) {
                        OutputStream out = socket.getOutputStream();
                        in.transferTo(out);
                    } catch (IOException e) {
                        // closed
                    }
                }, "echo");
                pump.setDaemon(true);
                pump.start();
            } catch (IOException e) {
                return;
            }
        }
    }
}
