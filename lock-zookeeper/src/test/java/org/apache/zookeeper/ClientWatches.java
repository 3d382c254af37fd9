package org.apache.zookeeper;

import java.util.List;

/**
 * What a client has registered as data watches (the paths), for tests that must act only
 * once a waiter is really waiting: {@link ZooKeeper#getDataWatches()} is visible in its own
 * package only, hence this class's package.
 */
public final class ClientWatches {

    private ClientWatches() {
    }

    /** The paths {@code client} holds data watches on, as its watch manager knows them now. */
    public static List<String> dataWatches(ZooKeeper client) {
        return client.getDataWatches();
    }
}
