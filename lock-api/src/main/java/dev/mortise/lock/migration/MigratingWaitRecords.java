package dev.mortise.lock.migration;

import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wait records of a migration: written to and removed from both stores, so a detector on a
 * client still on the old store only, or already on the new store only, finds a migrating waiter
 * (its holds are on both); read from the new store first, then the old. Thread-safe.
 */
final class MigratingWaitRecords implements WaitRecords {

    private final WaitRecords from;
    private final WaitRecords to;

    MigratingWaitRecords(WaitRecords from, WaitRecords to) {
        this.from = from;
        this.to = to;
    }

    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        Duration old = from.publish(holderIds, nonce, text, ttl);
        Duration next = to.publish(holderIds, nonce, text, ttl);
        return old.compareTo(next) > 0 ? old : next;
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        try {
            to.remove(holderIds, nonce);
        } finally {
            from.remove(holderIds, nonce);
        }
    }

    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        Map<String, String> found = new LinkedHashMap<>(from.read(holderIds));
        found.putAll(to.read(holderIds));
        return found;
    }
}
