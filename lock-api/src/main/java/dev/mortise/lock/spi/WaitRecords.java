package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * Where a backend keeps the wait records of deadlock detection: short texts, each stored under the
 * holder id of one hold its waiter has, that the server itself expires. The core writes and reads
 * them; the backend only stores them (a Redis key with a TTL, an etcd key on a lease, a ZooKeeper
 * ephemeral node, a row with an expiry). Returned by {@link LockBackend#waitRecords()}.
 *
 * <p>A wait record says "the owner of these holds waits for that key, since then". The core writes
 * one when a wait has lasted longer than its threshold, under the holder id of every hold the
 * waiter has (the same 16 hex digit digest {@link dev.mortise.lock.LockInspection.Holder#holderId()}
 * shows), rewrites it while the wait lasts and removes it when the wait ends. A detector that
 * inspects a key and finds its holders reads their records to follow the chain of waits.
 *
 * <p>What an implementation honours:
 * <ul>
 *   <li><b>Server expiry.</b> An entry written or rewritten with {@code ttl} is gone from every
 *       {@link #read} once the server has not been written to for that entry for the applied TTL,
 *       whatever happens to the writer (crash, pause, cut network). The TTL applied may be longer
 *       than asked (a server with whole-second leases rounds up) and {@link #publish} answers it;
 *       never shorter.</li>
 *   <li><b>One entry per holder id.</b> Writing under a holder id replaces what was there.</li>
 *   <li><b>Remove only your own.</b> {@link #remove} deletes an entry only while it still bears
 *       the given nonce, so a late removal never deletes a newer record.</li>
 *   <li><b>Nothing left behind.</b> Removed and expired entries leave nothing on the server (no
 *       empty row, node or key that outlives the TTL by more than the server's own sweep).</li>
 *   <li>Thread-safe; every call ends within the backend's operation timeout, failing with an
 *       unchecked exception (preferably {@link dev.mortise.lock.LockBackendException}).</li>
 * </ul>
 * Holder ids are 16 lowercase hex digits; nonces are at most 32 characters of {@code [0-9a-z]};
 * a text is at most 8 KiB of UTF-8 and any characters.
 */
public interface WaitRecords {

    /**
     * Writes {@code text} under each of {@code holderIds}, replacing what each had, with {@code nonce}
     * kept for {@link #remove}, expiring {@code ttl} after the server applies it.
     *
     * @return the TTL the server applied (at least {@code ttl})
     */
    Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl);

    /** Deletes the entries of {@code holderIds} that still bear {@code nonce}; leaves the others. */
    void remove(Collection<String> holderIds, String nonce);

    /**
     * Reads the live entries of {@code holderIds}: their texts by holder id, without those that have
     * none (never written, removed or expired). Writes no record; a backend whose server cannot
     * expire entries by itself while their writer lives may delete the expired ones it finds, and
     * stamp the server's clock to judge them (ZooKeeper does both).
     */
    Map<String, String> read(Collection<String> holderIds);
}
