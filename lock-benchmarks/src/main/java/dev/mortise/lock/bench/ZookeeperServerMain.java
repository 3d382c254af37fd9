package dev.mortise.lock.bench;

import org.apache.curator.test.TestingServer;

/**
 * Runs a ZooKeeper server (curator-test's {@link TestingServer}) in its own JVM, so that
 * like Redis, etcd and the databases it does not share the measuring JVM's heap and threads.
 * Prints {@code READY <connectString>} and stops when its standard input closes.
 */
public final class ZookeeperServerMain {

    private ZookeeperServerMain() {
    }

    public static void main(String[] args) throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            System.out.println("READY " + server.getConnectString());
            System.out.flush();
            while (System.in.read() != -1) {
                // wait for the parent to close our input (or die)
            }
        }
    }
}
