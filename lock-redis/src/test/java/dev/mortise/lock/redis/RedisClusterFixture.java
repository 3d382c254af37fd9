package dev.mortise.lock.redis;

import dev.mortise.lock.tck.server.RedisServer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster of {@code masters} redis-servers on loopback, joined with
 * {@code redis-cli --cluster create}; closing kills every member.
 */
final class RedisClusterFixture implements AutoCloseable {

    private final List<RedisServer> nodes = new ArrayList<>();

    RedisClusterFixture(int masters) throws Exception {
        try {
            for (int i = 0; i < masters; i++) {
                RedisServer node = new RedisServer();
                node.args("--cluster-enabled", "yes", "--cluster-config-file", node.dir().resolve("nodes.conf").toString(),
                        "--cluster-node-timeout", "5000");
                nodes.add(node);
                // One at a time, so that FreePorts cannot hand out a port a launched node is about to bind.
                node.start();
            }
            List<String> command = new ArrayList<>(List.of("/usr/bin/redis-cli", "--cluster", "create"));
            nodes.forEach(n -> command.add("127.0.0.1:" + n.port()));
            command.add("--cluster-yes");
            Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed:\n" + output);
            }
            awaitClusterOk();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void awaitClusterOk() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (RedisServer node : nodes) {
            while (!node.command("CLUSTER", "INFO").startsWith("cluster_state:ok")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("cluster not ok within 60 s on " + node + ": "
                            + node.command("CLUSTER", "INFO"));
                }
                Thread.sleep(50);
            }
        }
    }

    String[] addresses() {
        return nodes.stream().map(RedisServer::address).toArray(String[]::new);
    }

    /**
     * Sends a one-key command to every node and returns the replies of the node that owns
     * the key (the others answer {@code -MOVED}).
     */
    String onOwner(String... command) throws IOException {
        for (RedisServer node : nodes) {
            String reply = node.command(command);
            if (!reply.startsWith("-MOVED")) {
                return reply;
            }
        }
        throw new IllegalStateException("no node owns the key of " + String.join(" ", command));
    }

    /** The index of the node that owns {@code key}'s slot. */
    int ownerOf(String key) throws IOException {
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).command("EXISTS", key).startsWith("-MOVED")) {
                return i;
            }
        }
        throw new IllegalStateException("no node owns " + key);
    }

    /** Script calls ({@code EVALSHA} and {@code EVAL}) the members have served, summed: round trips of the lock protocol. */
    long scriptCalls() throws Exception {
        long calls = 0;
        for (RedisServer node : nodes) {
            calls += RedisMultiKeyBatchTest.scriptCalls(node.port());
        }
        return calls;
    }

    /** {@code CLUSTER KEYSLOT key} as the server computes it. */
    int slotOf(String key) throws IOException {
        return Integer.parseInt(nodes.get(0).command("CLUSTER", "KEYSLOT", key).substring(1));
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
