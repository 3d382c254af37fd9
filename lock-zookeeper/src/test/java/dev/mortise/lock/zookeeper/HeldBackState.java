package dev.mortise.lock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.StandardListenerManager;
import org.apache.curator.framework.listen.UnaryListenerManager;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.framework.state.ConnectionStateListenerManagerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Delivers one connection state late, as a busy machine may: Curator posts it on time, but
 * no listener of the client hears it until {@link #release()}, and the states after it wait
 * behind it (Curator delivers them in order, on one thread). Everything else the client does
 * (connecting, new sessions, requests) goes on meanwhile. Give it to the client's builder
 * with {@code connectionStateListenerManagerFactory}.
 */
final class HeldBackState implements ConnectionStateListenerManagerFactory {

    private final ConnectionState held;
    private final CountDownLatch posted = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    HeldBackState(ConnectionState held) {
        this.held = held;
    }

    /** Lets the held state (and what queued behind it) reach the listeners. */
    void release() {
        released.countDown();
    }

    /** Whether Curator has posted the held state (it is now waiting for {@link #release()}). */
    boolean posted() {
        return posted.getCount() == 0;
    }

    @Override
    public UnaryListenerManager<ConnectionStateListener> newManager(CuratorFramework client) {
        return new Manager();
    }

    private final class Manager implements UnaryListenerManager<ConnectionStateListener> {

        private final StandardListenerManager<ConnectionStateListener> delegate = StandardListenerManager.standard();
        private final Map<ConnectionStateListener, ConnectionStateListener> wrappers = new ConcurrentHashMap<>();

        @Override
        public void addListener(ConnectionStateListener listener) {
            delegate.addListener(wrappers.computeIfAbsent(listener, this::holdingBack));
        }

        @Override
        public void addListener(ConnectionStateListener listener, Executor executor) {
            delegate.addListener(wrappers.computeIfAbsent(listener, this::holdingBack), executor);
        }

        @Override
        public void removeListener(ConnectionStateListener listener) {
            ConnectionStateListener wrapper = wrappers.remove(listener);
            if (wrapper != null) {
                delegate.removeListener(wrapper);
            }
        }

        @Override
        public void clear() {
            wrappers.clear();
            delegate.clear();
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public void forEach(Consumer<ConnectionStateListener> function) {
            delegate.forEach(function);
        }

        private ConnectionStateListener holdingBack(ConnectionStateListener listener) {
            return (client, state) -> {
                if (state == held) {
                    posted.countDown();
                    try {
                        released.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                listener.stateChanged(client, state);
            };
        }
    }
}
