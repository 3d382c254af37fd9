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
 * step and signal its wake-up. As {@link KeyWatch}, it asks etcd to confirm its creation and wakes
 * the waiter if the revision had moved past its start by then (etcd replays missed events of a
 * past-revision watch only at its next resync). Thread-safe.
 */
final class PrefixWatch implements AutoCloseable {

    private final Watch.Watcher watcher;
    private final ConcurrentLinkedQueue<WatchEvent> events = new ConcurrentLinkedQueue<>();
    private volatile boolean broken;

    PrefixWatch(Watch watch, ByteSequence prefix, ByteSequence own, long fromRevision, Wakeup wake) {
        WatchOption option = WatchOption.builder().withRevision(fromRevision).isPrefix(true)
                .withRequireLeader(true).withCreateNotify(true).build();
        this.watcher = watch.watch(prefix, option, Watch.listener(response -> {
            if (response.isCreatedNotify()) {
                if (response.getHeader().getRevision() >= fromRevision) {
                    wake.signal();
                }
                return;
            }
            boolean relevant = false;
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() == WatchEvent.EventType.DELETE || event.getKeyValue().getKey().equals(own)) {
                    events.add(event);
                    relevant = true;
                }
            }
            if (relevant) {
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

    /** The events queued since the last drain, in the order etcd sent them. */
    List<WatchEvent> drain() {
        List<WatchEvent> drained = new ArrayList<>();
        for (WatchEvent event; (event = events.poll()) != null; ) {
            drained.add(event);
        }
        return drained;
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
