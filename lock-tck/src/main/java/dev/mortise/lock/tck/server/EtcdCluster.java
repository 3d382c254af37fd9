package dev.mortise.lock.tck.server;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** A private etcd cluster of several members on loopback ports; members can be killed, paused and restarted. */
public final class EtcdCluster implements AutoCloseable {

    private final List<EtcdServer> members = new ArrayList<>();

    public EtcdCluster(int size) {
        for (int i = 0; i < size; i++) {
            members.add(new EtcdServer("etcd" + i, FreePorts.next(), FreePorts.next()));
        }
        String initial = members.stream().map(m -> m.memberName() + "=" + m.peerUrl()).collect(Collectors.joining(","));
        String token = "mortise-" + java.util.UUID.randomUUID();
        members.forEach(m -> m.initialCluster(initial, token));
    }

    /** Starts every member, then waits until each reports healthy. */
    public EtcdCluster start() {
        members.forEach(EtcdServer::launch);
        members.forEach(EtcdServer::awaitReady);
        return this;
    }

    public List<EtcdServer> members() {
        return List.copyOf(members);
    }

    /** All client endpoints. */
    public List<String> endpoints() {
        return members.stream().map(EtcdServer::endpoint).toList();
    }

    @Override
    public void close() {
        members.forEach(EtcdServer::close);
    }
}
