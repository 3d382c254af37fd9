package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

/**
 * A waiter's watch, from the revision of its last read on, for the deletion of its
 * predecessor and of its own key, in <em>one</em> watch stream: one range watch over the
 * two keys (and whatever sorts between them, ignored), so etcd delivers both keys' events
 * in revision order. That order is what lets a waiter take the lock on its predecessor's
 * deletion without reading again: when that event arrives, every earlier deletion of our
 * own key has arrived before it. Watching from a revision replays what happened since, so
 * a deletion between the read and the watch is never missed. It signals a wake-up on
 * either deletion and when the watch breaks (a broken watch is replaced, and the waiter
 * looks again rather than trusting it). Thread-safe.
 */
final class KeyWatch implements AutoCloseable {

    /** What the watch has seen, in revision order. */
    enum Seen { NOTHING, PREDECESSOR_DELETED, OWN_DELETED }

    private final Watch.Watcher watcher;
    private volatile boolean broken;
    private volatile Seen seen = Seen.NOTHING;

    /**
     * Watches {@code predecessor} and {@code own} from {@code fromRevision}. etcd registers a
     * watch whose start revision is already past as "unsynced" and replays the events it
     * missed only at its next resync, up to 100 ms later; a predecessor released between
     * our read and the watch's creation would wake us that late. So the watch asks etcd to
     * confirm its creation and, if the cluster's revision had moved past our read by then,
     * wakes the waiter to look at once.
     */
    KeyWatch(Watch watch, ByteSequence predecessor, ByteSequence own, long fromRevision, Wakeup wake) {
        boolean ownFirst = compare(own, predecessor) < 0;
        ByteSequence from = ownFirst ? own : predecessor;
        ByteSequence to = (ownFirst ? predecessor : own).concat(ByteSequence.from(new byte[] {0}));
        WatchOption option = WatchOption.builder().withRevision(fromRevision).withRange(to).withNoPut(true)
                .withRequireLeader(true).withCreateNotify(true).build();
        this.watcher = watch.watch(from, option, Watch.listener(response -> {
            if (response.isCreatedNotify()) {
                if (response.getHeader().getRevision() >= fromRevision) {
                    wake.signal();
                }
                return;
            }
            boolean woke = false;
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() != WatchEvent.EventType.DELETE) {
                    continue;
                }
                ByteSequence key = event.getKeyValue().getKey();
                if (key.equals(own)) {
                    seen = Seen.OWN_DELETED;
                    woke = true;
                } else if (key.equals(predecessor)) {
                    if (seen == Seen.NOTHING) {
                        seen = Seen.PREDECESSOR_DELETED;
                    }
                    woke = true;
                }
            }
            if (woke) {
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

    /** The first of the two deletions this watch saw, if any. */
    Seen seen() {
        return seen;
    }

    boolean broken() {
        return broken;
    }

    private static int compare(ByteSequence a, ByteSequence b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(), b.getBytes());
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
