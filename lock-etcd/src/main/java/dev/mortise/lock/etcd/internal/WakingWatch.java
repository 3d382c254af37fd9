package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.List;

/**
 * A waiter's watch that signals its {@link Wakeup}: on the events its subclass finds relevant
 * ({@link KeyWatch}, {@link PrefixWatch}), when it breaks (an error or the stream's end: the waiter
 * looks again rather than trusting it, and replaces it), and when etcd confirms its creation late.
 * etcd registers a watch whose start revision is already past as "unsynced" and replays the events
 * it missed only at its next resync, up to 100 ms later; a key released between our read and the
 * watch's creation would wake us that late. So the watch asks etcd to confirm its creation and, if
 * the cluster's revision had moved past our read by then, wakes the waiter to look at once.
 * Thread-safe.
 */
abstract class WakingWatch implements AutoCloseable {

    private volatile Watch.Watcher watcher;
    private volatile boolean broken;

    /**
     * Starts watching {@code key} with {@code option} (which asks for the creation notice) from
     * {@code fromRevision}: called last in a subclass's constructor, once the fields that
     * {@link #relevant} fills are set.
     */
    final void start(Watch watch, ByteSequence key, WatchOption option, long fromRevision, Wakeup wake) {
        watcher = watch.watch(key, option, Watch.listener(response -> {
            if (response.isCreatedNotify()) {
                if (response.getHeader().getRevision() >= fromRevision) {
                    wake.signal();
                }
                return;
            }
            if (relevant(response.getEvents())) {
                wake.signal();
            }
        }, error -> {
            broken = true;
            wake.signal();
        }, () -> {
            broken = true;
            wake.signal();
        }));
    }

    /** Takes in the events of one response (on jetcd's thread); whether any of them wakes the waiter. */
    abstract boolean relevant(List<WatchEvent> events);

    boolean broken() {
        return broken;
    }

    @Override
    public void close() {
        Watch.Watcher started = watcher;
        if (started == null) {
            return;
        }
        try {
            started.close();
        } catch (RuntimeException ignored) {
            // closing a watch on a closed client: nothing left to stop
        }
    }
}
