package dev.mortise.lock.bench.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the requests clients send to a Redis server while open, through {@code MONITOR}.
 * Commands that Lua scripts run inside the server are shown by MONITOR as {@code [db lua]}
 * and are not counted: a script call is one request however many keys it touches
 * ({@code INFO commandstats} would count those inner commands too).
 */
final class RedisMonitor implements AutoCloseable {

    private final Socket socket;
    private final Thread reader;
    private final AtomicLong requests = new AtomicLong();

    RedisMonitor(String address) throws IOException {
        URI uri = URI.create(address);
        socket = new Socket(uri.getHost(), uri.getPort());
        OutputStream out = socket.getOutputStream();
        out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            socket.close();
            throw new IOException("MONITOR answered " + ok);
        }
        reader = new Thread(() -> {
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    // "+1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" ..." — a client's request;
                    // "+1700000000.123456 [0 lua] "GET" ..." — a command inside a script.
                    if (line.startsWith("+") && !line.contains(" lua] ")) {
                        requests.incrementAndGet();
                    }
                }
            } catch (IOException closed) {
                // closed by close()
            }
        }, "redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    long requests() {
        return requests.get();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
