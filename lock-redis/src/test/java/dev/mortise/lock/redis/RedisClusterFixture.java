package dev.mortise.lock.redis;

import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.RedisServer;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster of {@code masters} redis-servers on loopback, joined with
 * {@code redis-cli --cluster create}, optionally with one replica per master; closing kills
 * every member.
 */
final class RedisClusterFixture implements AutoCloseable {

    private final List<RedisServer> nodes = new ArrayList<>();
    /** With replicas: the replica of each master, by the master's port. */
    private final Map<Integer, RedisServer> replicaOfMaster = new HashMap<>();
    /** With replicas: the masters, in the order of their ports. */
    private final List<RedisServer> masters = new ArrayList<>();

    /** {@code masters} masters and no replicas. */
    RedisClusterFixture(int masters) throws Exception {
        this(masters, false);
    }

    /**
     * {@code masters} masters, each with one replica when {@code withReplicas}
     * ({@code --cluster-replicas 1}); returns once the cluster is ok on every member and every
     * replica reports {@code master_link_status:up}.
     */
    RedisClusterFixture(int masters, boolean withReplicas) throws Exception {
        int members = withReplicas ? masters * 2 : masters;
        try {
            for (int i = 0; i < members; i++) {
                RedisServer node = new RedisServer();
                // The bus port claimed like the client port (by default it is port + 10000, which
                // no one reserves: a test JVM beside this one could be handed it).
                node.args("--cluster-enabled", "yes", "--cluster-config-file", node.dir().resolve("nodes.conf").toString(),
                        "--cluster-node-timeout", "5000", "--cluster-port", Integer.toString(FreePorts.next()));
                nodes.add(node);
                // One at a time, so that FreePorts cannot hand out a port a launched node is about to bind.
                node.start();
            }
            List<String> command = new ArrayList<>(List.of("/usr/bin/redis-cli", "--cluster", "create"));
            nodes.forEach(n -> command.add("127.0.0.1:" + n.port()));
            if (withReplicas) {
                command.addAll(List.of("--cluster-replicas", "1"));
            }
            command.add("--cluster-yes");
            Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed:\n" + output);
            }
            awaitClusterOk();
            if (withReplicas) {
                mapReplicas();
            }
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

    /**
     * Reads {@code CLUSTER NODES} (redis-cli chooses which member replicates which master) and
     * waits until every replica's link to its master is up and the cluster bus agrees.
     */
    private void mapReplicas() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (RedisServer node : nodes) {
            while (true) {
                String info = RedisCli.run(node.port(), "INFO", "replication");
                if (info.contains("role:master")) {
                    break;
                }
                if (info.contains("master_link_status:up")) {
                    int masterPort = Integer.parseInt(info.lines().filter(l -> l.startsWith("master_port:"))
                            .findFirst().orElseThrow().substring("master_port:".length()).trim());
                    replicaOfMaster.put(masterPort, node);
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("replica " + node + " not in sync within 60 s:\n" + info);
                }
                Thread.sleep(50);
            }
        }
        for (RedisServer node : nodes) {
            if (replicaOfMaster.containsKey(node.port())) {
                masters.add(node);
            }
        }
        if (masters.size() * 2 != nodes.size()) {
            throw new IllegalStateException("expected one replica per master, got " + replicaOfMaster.size()
                    + " replicas for " + (nodes.size() - replicaOfMaster.size()) + " members; CLUSTER NODES:\n"
                    + RedisCli.run(nodes.get(0).port(), "CLUSTER", "NODES"));
        }
    }

    /** With replicas: the master that owns {@code key}'s slot. */
    RedisServer masterOf(String key) throws IOException {
        for (RedisServer master : masters) {
            if (!master.command("EXISTS", key).startsWith("-MOVED")) {
                return master;
            }
        }
        throw new IllegalStateException("no master owns " + key);
    }

    /** With replicas: the masters (three for {@code new RedisClusterFixture(3, true)}). */
    List<RedisServer> masters() {
        return List.copyOf(masters);
    }

    /** With replicas: the replica of {@code master}. */
    RedisServer replicaOf(RedisServer master) {
        RedisServer replica = replicaOfMaster.get(master.port());
        if (replica == null) {
            throw new IllegalStateException(master + " has no replica (start the fixture with replicas)");
        }
        return replica;
    }

    /**
     * With replicas: moves the slot of {@code key}, empty, from master {@code from} to master {@code to} the
     * way a resharding does ({@code IMPORTING}, {@code MIGRATING}, then {@code NODE} on the target,
     * the source and the other masters; the target bumps its config epoch, so the replicas learn
     * it over the cluster bus), and waits until every member redirects the slot to {@code to}.
     * A client that read the topology before keeps sending the slot to {@code from}.
     */
    void moveEmptySlotOf(String key, RedisServer from, RedisServer to) throws Exception {
        int slot = slotOf(key);
        String fromId = from.command("CLUSTER", "MYID");
        String toId = to.command("CLUSTER", "MYID");
        String s = Integer.toString(slot);
        expectOk(to.command("CLUSTER", "SETSLOT", s, "IMPORTING", fromId));
        expectOk(from.command("CLUSTER", "SETSLOT", s, "MIGRATING", toId));
        String keys = from.command("CLUSTER", "COUNTKEYSINSLOT", s);
        if (!keys.equals(":0")) {
            throw new IllegalStateException("slot " + slot + " is not empty on " + from + ": " + keys);
        }
        expectOk(to.command("CLUSTER", "SETSLOT", s, "NODE", toId));
        expectOk(from.command("CLUSTER", "SETSLOT", s, "NODE", toId));
        for (RedisServer master : masters) {
            if (master != from && master != to) {
                expectOk(master.command("CLUSTER", "SETSLOT", s, "NODE", toId));
            }
        }
        String redirect = "-MOVED " + slot + " 127.0.0.1:" + to.port();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (RedisServer node : nodes) {
            if (node == to) {
                continue;
            }
            while (!node.command("EXISTS", key).equals(redirect)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(node + " still does not redirect slot " + slot + " to " + to
                            + ": " + node.command("EXISTS", key));
                }
                Thread.sleep(50);
            }
        }
    }

    private static void expectOk(String reply) {
        if (!reply.equals("+OK")) {
            throw new IllegalStateException("CLUSTER SETSLOT answered " + reply);
        }
    }

    /** Keys the server holds in {@code slot} on {@code master}. */
    static long keysInSlot(RedisServer master, int slot) throws IOException {
        return Long.parseLong(master.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)).substring(1));
    }

    /**
     * Sends {@code READONLY} and then {@code command} on one connection to {@code replica}, so a
     * replica answers for its own copy instead of redirecting to its master; returns the
     * command's reply as {@link RedisServer#command} does (first line, or a bulk string's value).
     */
    static String readOnReplica(RedisServer replica, String... command) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), replica.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(resp("READONLY"));
            out.write(resp(command));
            out.flush();
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            String readOnly = line(in);
            if (!readOnly.equals("+OK")) {
                throw new IllegalStateException("READONLY on " + replica + " answered " + readOnly);
            }
            String reply = line(in);
            if (reply.startsWith("$") && !reply.equals("$-1")) {
                byte[] value = new byte[Integer.parseInt(reply.substring(1))];
                in.readFully(value);
                return new String(value, StandardCharsets.UTF_8);
            }
            return reply;
        }
    }

    private static byte[] resp(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(bytes);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static String line(DataInputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /** The members' ports, in the order they were started. */
    List<Integer> ports() {
        return nodes.stream().map(RedisServer::port).toList();
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
