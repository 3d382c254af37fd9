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

    /** Nothing arrives within {@code millis}: the read times out (the connection stays open). */
    private static void assertSilentFor(Socket s, int millis) throws IOException {
        int before = s.getSoTimeout();
        s.setSoTimeout(millis);
        try {
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(java.net.SocketTimeoutException.class);
        } finally {
            s.setSoTimeout(before);
        }
    }

    @Test
    void aSilentPartitionForwardsNothingClosesNothingAndDeliversTheHeldBytesWhenHealed() throws IOException {
        try (Socket open = connect()) {
            assertThat(roundTrip(open, "before")).isEqualTo("before");
            proxy.silence();
            open.getOutputStream().write("during".getBytes());
            open.getOutputStream().flush();
            // No reply and no end of stream: the connection is open and dark.
            assertSilentFor(open, 300);
            assertThat(open.isClosed()).isFalse();
            // A new connection is accepted and answered by nobody.
            try (Socket fresh = connect()) {
                fresh.getOutputStream().write("fresh".getBytes());
                fresh.getOutputStream().flush();
                assertSilentFor(fresh, 300);
                proxy.heal();
                // The held bytes go out late, in order, on both connections.
                assertThat(new String(open.getInputStream().readNBytes(6))).isEqualTo("during");
                assertThat(new String(fresh.getInputStream().readNBytes(5))).isEqualTo("fresh");
            }
            assertThat(roundTrip(open, "after")).isEqualTo("after");
        }
    }

    @Test
    void heldRepliesLetRequestsThroughAndArriveAfterTheHeal() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "warm")).isEqualTo("warm");
            long forwarded = proxy.requestsForwarded();
            proxy.holdReplies();
            s.getOutputStream().write("ping".getBytes());
            s.getOutputStream().flush();
            // The request reaches the server (counted once written there); its echo is held.
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (proxy.requestsForwarded() == forwarded && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(proxy.requestsForwarded()).isGreaterThan(forwarded);
            assertSilentFor(s, 300);
            proxy.heal();
            assertThat(new String(s.getInputStream().readNBytes(4))).isEqualTo("ping");
        }
    }

    @Test
    void aCutDuringASilenceDropsTheHeldBytesAndCloses() throws IOException {
        try (Socket open = connect()) {
            assertThat(roundTrip(open, "before")).isEqualTo("before");
            proxy.silence();
            open.getOutputStream().write("lost".getBytes());
            open.getOutputStream().flush();
            proxy.cut();
            assertThat(readOrEnd(open)).isEqualTo(-1);
        }
    }
}
