package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Clean-ups that must wait for the connection: nothing is sent while it is down (see
 * {@link ZkCalls}), so what could not be sent is kept here and run once it is back. A
 * session that ended instead takes the ephemeral nodes the clean-ups were for along.
 * Thread-safe.
 */
final class WhenConnected {

    private static final Logger log = LoggerFactory.getLogger(WhenConnected.class);

    private final ZkCalls calls;
    private final Set<Runnable> pending = ConcurrentHashMap.newKeySet();
    private final ConnectionStateListener resend = (c, state) -> {
        if (state.isConnected()) {
            runPending();
        }
    };

    WhenConnected(ZkCalls calls) {
        this.calls = calls;
        calls.client().getConnectionStateListenable().addListener(resend);
    }

    /** Stops watching the connection; what is still pending is left to the session's end. */
    void close() {
        calls.client().getConnectionStateListenable().removeListener(resend);
    }

    /**
     * Runs {@code task} now if the client is connected, else once the connection is back. A
     * task already pending is not added twice.
     */
    void run(Runnable task) {
        pending.add(task);
        if (calls.isConnected()) {
            runPending();
        }
    }

    private void runPending() {
        for (Runnable task : pending) {
            if (pending.remove(task)) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.debug("A clean-up run after reconnecting failed; the session's end removes what it was for",
                            e);
                }
            }
        }
    }
}
