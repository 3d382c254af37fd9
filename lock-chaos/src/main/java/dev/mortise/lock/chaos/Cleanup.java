package dev.mortise.lock.chaos;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything a chaos run starts (servers, worker JVMs), closed in reverse order by one JVM
 * shutdown hook, so Ctrl-C or a failure never leaves a worker stopped by SIGSTOP or a server
 * behind. Normal paths close their resources themselves; closing twice is harmless.
 */
public final class Cleanup {

    private static final Deque<AutoCloseable> RESOURCES = new ArrayDeque<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Cleanup::closeAll, "chaos-cleanup"));
    }

    private Cleanup() {
    }

    /** Registers a resource to close at JVM exit; returns it. */
    public static synchronized <T extends AutoCloseable> T register(T resource) {
        RESOURCES.push(resource);
        return resource;
    }

    /** Forgets a resource that has been closed (keeps the list short over long runs). */
    public static synchronized void forget(AutoCloseable resource) {
        RESOURCES.remove(resource);
    }

    private static synchronized void closeAll() {
        while (!RESOURCES.isEmpty()) {
            try {
                RESOURCES.pop().close();
            } catch (Exception e) {
                // Best effort at exit: go on with the others.
            }
        }
    }
}
