package dev.mortise.lock.redis;

import dev.mortise.lock.tck.server.Binaries;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.ServerProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A Redis Sentinel ({@code redis-server <conf> --sentinel}) on a free loopback port,
 * monitoring one master with quorum 1 and fast failure detection, for failover tests.
 */
final class SentinelServer extends ServerProcess {

    static final String MASTER_NAME = "mymaster";

    private final Path binary = Binaries.require("redis-server", "redis-server");
    private final int masterPort;

    SentinelServer(int masterPort) {
        super("redis-sentinel", FreePorts.next());
        this.masterPort = masterPort;
    }

    String address() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    protected void prepare() throws IOException {
        // Sentinel rewrites its configuration file, so it must be a writable file of its own.
        Files.writeString(dir.resolve("sentinel.conf"), String.join("\n",
                "port " + port,
                "bind 127.0.0.1",
                "protected-mode no",
                "daemonize no",
                "dir " + dir,
                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 1",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                "sentinel failover-timeout " + MASTER_NAME + " 5000",
                ""), StandardCharsets.UTF_8);
    }

    @Override
    protected List<String> command() {
        return List.of(binary.toString(), dir.resolve("sentinel.conf").toString(), "--sentinel");
    }
}
