package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A ticker for tests: moves only when told, and calls its listeners after each move, as a ticker that jumps must. */
public final class HandTicker implements Ticker {

    /** Where the ticker stands; a test may move it without telling the listeners. */
    public volatile long now = 1L << 50;
    /** The listeners registered, in order (the server's first, then each client's). */
    public final List<JumpListener> listeners = new CopyOnWriteArrayList<>();

    @Override
    public long read() {
        return now;
    }

    @Override
    public Runnable onJump(JumpListener listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Moves by {@code by} and tells every listener. */
    public void jump(Duration by) {
        now += by.toNanos();
        listeners.forEach(JumpListener::jumped);
    }
}
