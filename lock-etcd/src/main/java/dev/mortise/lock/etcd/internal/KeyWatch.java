package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.List;

/**
 * A waiter's watch, from the revision of its last read on, for the deletion of its
 * predecessor and of its own key, in <em>one</em> watch stream: one range watch over the
 * two keys (and whatever sorts between them, ignored), so etcd delivers both keys' events
 * in revision order. That order is what lets a waiter take the lock on its predecessor's
 * deletion without reading again: when that event arrives, every earlier deletion of our
 * own key has arrived before it. Watching from a revision replays what happened since, so
 * a deletion between the read and the watch is never missed. It signals a wake-up on
 * either deletion, when the watch breaks and when etcd confirms it late ({@link WakingWatch}).
 * Thread-safe.
 */
final class KeyWatch extends WakingWatch {

    /** What the watch has seen, in revision order. */
    enum Seen { NOTHING, PREDECESSOR_DELETED, OWN_DELETED }

    private final ByteSequence predecessor;
    private final ByteSequence own;
    private volatile Seen seen = Seen.NOTHING;

    /** Watches {@code predecessor} and {@code own} from {@code fromRevision}, waking {@code wake}. */
    KeyWatch(Watch watch, ByteSequence predecessor, ByteSequence own, long fromRevision, Wakeup wake) {
        this.predecessor = predecessor;
        this.own = own;
        boolean ownFirst = compare(own, predecessor) < 0;
        ByteSequence from = ownFirst ? own : predecessor;
        ByteSequence to = (ownFirst ? predecessor : own).concat(ByteSequence.from(new byte[] {0}));
        WatchOption option = WatchOption.builder().withRevision(fromRevision).withRange(to).withNoPut(true)
                .withRequireLeader(true).withCreateNotify(true).build();
        start(watch, from, option, fromRevision, wake);
    }

    @Override
    boolean relevant(List<WatchEvent> events) {
        boolean woke = false;
        for (WatchEvent event : events) {
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
        return woke;
    }

    /** The first of the two deletions this watch saw, if any. */
    Seen seen() {
        return seen;
    }

    private static int compare(ByteSequence a, ByteSequence b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(), b.getBytes());
    }
}
