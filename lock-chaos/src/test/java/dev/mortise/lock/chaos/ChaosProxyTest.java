package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy the network faults go through, in front of a loopback echo server. */
class ChaosProxyTest {

    private ServerSocket echo;
    private ChaosProxy proxy;

    @BeforeEach
    void startEchoServerAndProxy() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread t = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException e) {
                            // the client or the proxy closed it
                        }
                    });
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = ChaosProxy.to("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(5000);
        return s;
    }

    private static String roundTrip(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes());
        s.getOutputStream().flush();
        byte[] reply = s.getInputStream().readNBytes(text.length());
        return new String(reply);
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "hello")).isEqualTo("hello");
            assertThat(roundTrip(s, "again")).isEqualTo("again");
        }
    }

    @Test
    void aCutClosesOpenConnectionsAndRefusesNewOnesUntilHealed() throws IOException {
        try (Socket open = connect()) {
            assertThat(roundTrip(open, "before")).isEqualTo("before");
            proxy.cut();
            // The open connection ends: a read sees end of stream or a reset.
            assertThatThrownBy(() -> {
                String reply = roundTrip(open, "during");
                if (reply.length() < "during".length()) {
                    throw new IOException("closed");
                }
            }).isInstanceOf(IOException.class);
        }
        try (Socket during = connect()) {
            // Accepted by the kernel, then closed by the proxy: nothing comes back.
            during.getOutputStream().write("x".getBytes());
            assertThat(readOrEnd(during)).isEqualTo(-1);
        }
        proxy.heal();
        try (Socket after = connect()) {
            assertThat(roundTrip(after, "after")).isEqualTo("after");
        }
    }

    private static int readOrEnd(Socket s) {
        try {
            return s.getInputStream().read();
        } catch (IOException e) {
            return -1;
        }
    }

    @Test
    void aDelayHoldsEachChunkAtLeastThatLongEachWay() throws IOException {
        try (Socket s = connect()) {
            roundTrip(s, "warm");
            proxy.delay(300);
            long start = System.nanoTime();
            assertThat(roundTrip(s, "slow")).isEqualTo("slow");
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            // A lower bound only (the proxy sleeps before forwarding, once up and once down).
            assertThat(tookMs).isGreaterThanOrEqualTo(600);
            proxy.delay(0);
            assertThat(roundTrip(s, "fast")).isEqualTo("fast");
        }
    }
}
