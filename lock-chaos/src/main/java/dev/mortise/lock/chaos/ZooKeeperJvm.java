package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.ServerProcess;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * One ZooKeeper server in a JVM of its own (curator-test's {@link TestingServer} run by
 * {@link Main}), so that its process can be started under libfaketime, killed with -9 and
 * restarted on the same port and data like any other {@link ServerProcess}: for
 * {@link Fault#SERVER_CLOCK_JUMP}, whose offset file ({@link FakeClock.OffsetFile}) reaches a JVM
 * only through its environment. The server is the one the in-controller runs use (tick 500 ms,
 * so sessions from 1 s), with the four-letter words {@code ruok}, {@code srvr} and {@code mntr}
 * whitelisted: it is ready when it answers {@code ruok} with {@code imok}. Its data and log are
 * in the launcher's temp directory, removed by {@link #close()}.
 *
 * <p>Not thread-safe, as {@link ServerProcess}.
 */
public final class ZooKeeperJvm extends ServerProcess {

    /** The tick of every chaos ZooKeeper: the server then grants session timeouts from 2 ticks, 1 s. */
    static final int TICK_MS = 500;

    private final String classpath;

    /** A server on a free port, its JVM started with {@code classpath} (which must hold lock-chaos). */
    public ZooKeeperJvm(String classpath) {
        super("zookeeper", FreePorts.next());
        this.classpath = classpath;
    }

    @Override
    protected List<String> command() {
        String java = ProcessHandle.current().info().command().orElse("java");
        return List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dzookeeper.4lw.commands.whitelist=srvr,mntr,ruok",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", classpath, Main.class.getName(), Integer.toString(port), dir.resolve("data").toString());
    }

    @Override
    protected boolean isReady() {
        return fourLetterWord(port, "ruok").startsWith("imok");
    }

    /** The server's answer to a four-letter word ({@code ruok}, {@code srvr}), or "" if it does not answer. */
    static String fourLetterWord(int port, String word) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** {@code 127.0.0.1:port}, what ZooKeeper clients connect to. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /**
     * {@code ZooKeeperJvm$Main PORT DATA_DIR}: runs the server until killed, or until its
     * standard input ends - the launcher's pipe closes when the launching JVM dies, however it
     * dies, so a controller killed with -9 leaves no server behind.
     */
    public static final class Main {

        private Main() {
        }

        public static void main(String[] args) throws Exception {
            int port = Integer.parseInt(args[0]);
            File data = new File(args[1]);
            // Kept on close: a kill -9 and restart (server-kill) finds its data again.
            TestingServer server = new TestingServer(
                    new InstanceSpec(data, port, -1, -1, false, -1, TICK_MS, -1), true);
            System.out.println("zookeeper: serving on 127.0.0.1:" + port + ", data in " + data);
            while (System.in.read() >= 0) {
                // Nothing is sent on stdin; only its end matters.
            }
            System.out.println("zookeeper: the launcher is gone, stopping");
            server.close();
            System.exit(0);
        }
    }
}
