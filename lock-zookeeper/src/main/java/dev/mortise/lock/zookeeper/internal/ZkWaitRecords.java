package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.WaitRecords;
import org.apache.curator.framework.api.CuratorEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The wait records of deadlock detection in ZooKeeper ({@link WaitRecords}): one EPHEMERAL node per
 * holder id, {@code <root>/#waits/<holder id>} ({@link LockPaths#waitRecord}), whose data is the
 * nonce, the TTL and the text ({@link WaitRecordFormat}), under one container node that the server
 * deletes once it is empty. The node dies with its writer's session; while that session lives,
 * the TTL is honoured by the readers, on the server's clock: every read first stamps the container
 * (a setData, which the leader stamps with its time), and a record whose last write (its mtime, also
 * the leader's time) is a TTL or more older than that stamp is expired: not read, and deleted with
 * the version read, so a rewrite in between survives. An expired record is thus never read, and
 * outlives its TTL on the server only until the next read that asks for it (or its writer's session
 * ends). Server TTL nodes would need {@code extendedTypesEnabled}, off by default.
 *
 * <ul>
 *   <li>{@link #publish}: a setData of every record (one round trip); those missing are then
 *       created (a second round trip on a record's first write), with the container chain in the
 *       same round trip if the container is missing too (a third).</li>
 *   <li>{@link #remove}: a getData of every record, then a delete of those bearing the nonce with
 *       the version read (compare-and-delete: a record rewritten meanwhile is looked at again). Two
 *       round trips; ZooKeeper can compare only versions, which restart with a new node, so the
 *       nonce must be read first.</li>
 *   <li>{@link #read}: the container's stamp and a getData of every record (one round trip), then
 *       the deletes of expired records, if any (one more).</li>
 * </ul>
 * The calls of one round trip are pipelined on the connection. Thread-safe; every call ends within
 * the operation timeout or fails with {@link LockBackendException} naming the backend.
 */
public final class ZkWaitRecords implements WaitRecords {

    private static final String READ = "read the wait record ";
    private static final String STAMP = "stamp the server's time on ";
    private static final String DELETE = "delete the wait record ";
    /** Rounds of a call whose records keep changing under it before it gives up. */
    private static final int ROUNDS = 4;

    private final ZkCalls calls;
    private final NodeReads reads;
    private final WaitRecordNodes nodes;
    private final LockPaths paths;

    public ZkWaitRecords(ZkOps ops, LockPaths paths) {
        this.calls = ops.calls();
        this.reads = ops.reads();
        this.nodes = new WaitRecordNodes(ops);
        this.paths = paths;
    }

    /** @return {@code ttl} rounded up to milliseconds, the unit of the server's clock */
    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        List<String> ids = WaitRecordFormat.checked(holderIds);
        long ttlMillis = ttl.toMillis() + (ttl.toNanosPart() % 1_000_000 > 0 ? 1 : 0);
        byte[] data = WaitRecordFormat.encode(WaitRecordFormat.checkedNonce(nonce), ttlMillis, text);
        nodes.writeAll(ids.stream().map(paths::waitRecord).toList(), data, paths.chain(paths.waitRecords()),
                calls.deadline());
        return Duration.ofMillis(ttlMillis);
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        List<String> ids = WaitRecordFormat.checked(holderIds);
        WaitRecordFormat.checkedNonce(nonce);
        long deadline = calls.deadline();
        for (int round = 0; !ids.isEmpty(); round++) {
            checkRounds(round, DELETE);
            List<CuratorEvent> found = readAll(ids, deadline);
            List<String> ours = new ArrayList<>();
            List<String> ourPaths = new ArrayList<>();
            List<CompletableFuture<CuratorEvent>> deletes = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                CuratorEvent event = found.get(i);
                WaitRecordFormat.Entry entry = event == null ? null : WaitRecordFormat.decode(event.getData());
                if (entry != null && entry.nonce().equals(nonce)) {
                    ours.add(ids.get(i));
                    ourPaths.add(paths.waitRecord(ids.get(i)));
                    deletes.add(nodes.deleteAsync(ourPaths.get(ourPaths.size() - 1), event.getStat().getVersion()));
                }
            }
            List<Integer> codes = nodes.codes(deletes, ourPaths, deadline, DELETE, WaitRecordNodes.NONODE,
                    WaitRecordNodes.BADVERSION);
            List<String> changed = new ArrayList<>();
            for (int i = 0; i < ours.size(); i++) {
                if (codes.get(i) == WaitRecordNodes.BADVERSION) {
                    changed.add(ours.get(i)); // rewritten since we read it: look at its nonce again
                }
            }
            ids = changed;
        }
    }

    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        List<String> ids = WaitRecordFormat.checked(holderIds);
        Map<String, String> live = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return live;
        }
        long deadline = calls.deadline();
        String parent = paths.waitRecords();
        // Sent first, so every getData after it is answered from a state at least as new as the stamp.
        CompletableFuture<CuratorEvent> stamp = reads.setDataAsync(parent, new byte[0], -1, null);
        List<CompletableFuture<CuratorEvent>> pending = ids.stream().map(id -> reads.dataAsync(paths.waitRecord(id), null))
                .toList();
        Long now = nodes.codes(List.of(stamp), List.of(parent), deadline, STAMP, WaitRecordNodes.NONODE).get(0)
                == WaitRecordNodes.OK ? stamp.join().getStat().getMtime() : null; // no container: nothing older
        List<String> expired = new ArrayList<>();
        List<CompletableFuture<CuratorEvent>> deletes = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            String path = paths.waitRecord(ids.get(i));
            CuratorEvent event = reads.dataResult(pending.get(i), deadline, path, null);
            WaitRecordFormat.Entry entry = event == null ? null : WaitRecordFormat.decode(event.getData());
            if (entry == null) {
                continue;
            }
            if (now != null && now - event.getStat().getMtime() >= entry.ttlMillis()) {
                expired.add(path);
                deletes.add(nodes.deleteAsync(path, event.getStat().getVersion()));
            } else {
                live.put(ids.get(i), entry.text());
            }
        }
        nodes.codes(deletes, expired, deadline, DELETE, WaitRecordNodes.NONODE, WaitRecordNodes.BADVERSION);
        return live;
    }

    /** A getData of every record, pipelined: each answer with data and stat, null where there is none. */
    private List<CuratorEvent> readAll(List<String> ids, long deadline) {
        List<CompletableFuture<CuratorEvent>> pending = ids.stream().map(id -> reads.dataAsync(paths.waitRecord(id), null))
                .toList();
        List<CuratorEvent> found = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            found.add(reads.dataResult(pending.get(i), deadline, paths.waitRecord(ids.get(i)), null));
        }
        return found;
    }

    private void checkRounds(int round, String what) {
        if (round == ROUNDS) {
            throw new LockBackendException("ZooKeeper could not " + what + "under " + paths.waitRecords() + ": other "
                    + "clients kept creating and deleting it (backend 'zookeeper', ensemble " + calls.ensemble()
                    + "). Retry the call.", null, Failures.BACKEND, null);
        }
    }
}
