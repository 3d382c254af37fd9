package dev.mortise.lock.local;

import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wait records of one {@link LocalLockServer}, expired on its ticker: what its backends answer
 * from {@link LocalLockBackend#waitRecords()}. Expired entries are swept by every call, so none
 * outlives its TTL by more than the next call. Thread-safe (one monitor); fails as the server's
 * other operations do while it is {@link LocalLockServer#stop() stopped}.
 */
final class LocalWaitRecords implements WaitRecords {

    private record Entry(String nonce, String text, long expiresAtNanos) {
    }

    private final LocalLockServer server;
    private final Map<String, Entry> entries = new HashMap<>(); // guarded by this

    LocalWaitRecords(LocalLockServer server) {
        this.server = server;
    }

    @Override
    public synchronized Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        server.checkUp("wait record");
        long expires = server.ticker().read() + ttl.toNanos();
        for (String holderId : holderIds) {
            entries.put(holderId, new Entry(nonce, text, expires));
        }
        sweep();
        return ttl;
    }

    @Override
    public synchronized void remove(Collection<String> holderIds, String nonce) {
        server.checkUp("wait record");
        for (String holderId : holderIds) {
            entries.computeIfPresent(holderId, (id, entry) -> entry.nonce.equals(nonce) ? null : entry);
        }
        sweep();
    }

    @Override
    public synchronized Map<String, String> read(Collection<String> holderIds) {
        server.checkUp("wait record");
        sweep();
        Map<String, String> found = new LinkedHashMap<>();
        for (String holderId : holderIds) {
            Entry entry = entries.get(holderId);
            if (entry != null) {
                found.put(holderId, entry.text);
            }
        }
        return found;
    }

    /** Test hook behind {@link LocalLockServer#waitRecords(Collection)}: live and expired entries kept. */
    synchronized int stored(Collection<String> holderIds) {
        sweep();
        return (int) holderIds.stream().filter(entries::containsKey).count();
    }

    private void sweep() {
        long now = server.ticker().read();
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            if (it.next().expiresAtNanos - now <= 0) {
                it.remove();
            }
        }
    }
}
