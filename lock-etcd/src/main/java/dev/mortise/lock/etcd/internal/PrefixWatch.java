package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A permit waiter's watch ({@link PermitWaiter}) of every key under the lock's prefix, puts and
 * deletes, from a revision on: deletions and puts on our own key are queued for the waiter's next
 * step and signal its wake-up, as do a break and a late creation notice ({@link WakingWatch}).
 * Thread-safe.
 */
final class PrefixWatch extends WakingWatch {

    private final ByteSequence own;
    private final ConcurrentLinkedQueue<WatchEvent> events = new ConcurrentLinkedQueue<>();

    PrefixWatch(Watch watch, ByteSequence prefix, ByteSequence own, long fromRevision, Wakeup wake) {
        this.own = own;
        WatchOption option = WatchOption.builder().withRevision(fromRevision).isPrefix(true)
                .withRequireLeader(true).withCreateNotify(true).build();
        start(watch, prefix, option, fromRevision, wake);
    }

    @Override
    boolean relevant(List<WatchEvent> response) {
        boolean relevant = false;
        for (WatchEvent event : response) {
            if (event.getEventType() == WatchEvent.EventType.DELETE || event.getKeyValue().getKey().equals(own)) {
                events.add(event);
                relevant = true;
            }
        }
        return relevant;
    }

    /** The events queued since the last drain, in the order etcd sent them. */
    List<WatchEvent> drain() {
        List<WatchEvent> drained = new ArrayList<>();
        for (WatchEvent event; (event = events.poll()) != null; ) {
            drained.add(event);
        }
        return drained;
    }
}
