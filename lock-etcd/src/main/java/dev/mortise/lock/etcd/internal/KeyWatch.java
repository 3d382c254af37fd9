package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.concurrent.Semaphore;

/**
 * A watch for the deletion of one key from a given revision on, which releases a
 * semaphore when the key is deleted or the watch breaks (a broken watch is replaced, and
 * the waiter looks again rather than trusting it). Watching from a revision replays
 * what happened since, so a deletion between our read and the watch is never missed.
 */
final class KeyWatch implements AutoCloseable {

    private final Watch.Watcher watcher;
    private volatile boolean broken;

    /**
     * A watch on our predecessor. etcd registers a watch whose start revision is already
     * past as "unsynced" and replays the events it missed only on its next resync, up to
     * 100 ms later; a predecessor released between our read and the watch's creation
     * would then wake us that late. So this watch asks etcd to confirm its creation and,
     * if the cluster's revision had moved past our read by then, wakes the waiter to look
     * at once instead.
     */
    static KeyWatch predecessor(Watch watch, ByteSequence key, long fromRevision, Semaphore wake) {
        return new KeyWatch(watch, key, fromRevision, wake);
    }

    private KeyWatch(Watch watch, ByteSequence key, long fromRevision, Semaphore wake) {
        WatchOption option = WatchOption.builder().withRevision(fromRevision).withNoPut(true)
                .withRequireLeader(true).withCreateNotify(true).build();
        this.watcher = watch.watch(key, option, Watch.listener(response -> {
            if (response.isCreatedNotify()) {
                if (response.getHeader().getRevision() >= fromRevision) {
                    wake.release();
                }
                return;
            }
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    wake.release();
                    return;
                }
            }
        }, error -> {
            broken = true;
            wake.release();
        }, () -> {
            broken = true;
            wake.release();
        }));
    }

    boolean broken() {
        return broken;
    }

    @Override
    public void close() {
        try {
            watcher.close();
        } catch (RuntimeException ignored) {
            // closing a watch on a closed client: nothing left to stop
        }
    }
}
