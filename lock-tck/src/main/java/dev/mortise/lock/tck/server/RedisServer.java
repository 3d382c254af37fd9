package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.nio.file.Path;
import java.util.List;

/**
 * A private {@code redis-server} (Debian package {@code redis-server}) on a free loopback
 * port. No persistence unless asked; extra arguments (cluster mode, replication) pass
 * through.
 */
public final class RedisServer extends ServerProcess {

    private final Path binary = Binaries.require("redis-server", "redis-server");
    private final List<String> extraArgs = new ArrayList<>();
    private boolean persistent;

    public RedisServer() {
        this(FreePorts.next());
    }

    public RedisServer(int port) {
        super("redis", port);
    }

    /** Keeps data across restarts (append-only file, fsync always). Call before start. */
    public RedisServer persistent() {
        this.persistent = true;
        return this;
    }

    /** Extra {@code --name value} arguments, e.g. {@code "--cluster-enabled", "yes"}. Call before start. */
    public RedisServer args(String... args) {
        extraArgs.addAll(List.of(args));
        return this;
    }

    /** {@code redis://127.0.0.1:port}. */
    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    protected List<String> command() {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--daemonize", "no", "--protected-mode", "no",
                "--save", ""));
        if (persistent) {
            command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
        } else {
            command.addAll(List.of("--appendonly", "no"));
        }
        command.addAll(extraArgs);
        return command;
    }

    @Override
    protected boolean isReady() {
        try {
            String reply = command("PING");
            // A server started with --requirepass answers NOAUTH: it is up, just not ours to use unauthenticated.
            return reply.equals("+PONG") || reply.startsWith("-NOAUTH");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Sends one command over a fresh connection and returns the first line of the reply
     * ({@code +OK}, {@code :1}, {@code $-1}, {@code -ERR ...}); for test set-up and fault
     * injection, not for lock traffic.
     */
    public String command(String... args) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            if (line.length() > 0 && line.charAt(0) == '$' && !line.toString().equals("$-1")) {
                StringBuilder value = new StringBuilder();
                while ((c = in.read()) != -1 && c != '\n') {
                    if (c != '\r') {
                        value.append((char) c);
                    }
                }
                return value.toString();
            }
            return line.toString();
        }
    }
}
