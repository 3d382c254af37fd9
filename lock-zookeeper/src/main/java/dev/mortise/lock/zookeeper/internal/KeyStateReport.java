package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyState;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Turns what {@link KeyInspection} read into the answer: the holders (with the owner their
 * node stores and their czxid as the token; a lingering hold with its marker's end), or the
 * lingering holds whose node is gone, which then hold the key by themselves, and the waiters.
 * Stateless.
 */
final class KeyStateReport {

    private KeyStateReport() {
    }

    /**
     * @param queue      the key's lock nodes, in sequence order
     * @param holding    the names of the nodes that hold by the queue's rule
     * @param nodes      the holding nodes as read (data and stat), those that were still there
     * @param markers    the lingering holds' markers the listing showed
     * @param markerData the markers as read, null where one was gone
     * @param serverNow  now, by this process's wall clock but never earlier than the newest
     *                   server time the reads showed
     */
    static KeyState of(List<String> queue, List<String> holding, List<CuratorEvent> nodes, List<String> markers,
                       List<CuratorEvent> markerData, long serverNow) {
        Map<Long, KeyState.Holder> lingering = lingering(markers, markerData, serverNow);

        List<KeyState.Holder> holders = new ArrayList<>(nodes.size());
        Set<Long> held = new HashSet<>();
        for (CuratorEvent node : nodes) {
            Stat stat = node.getStat();
            held.add(stat.getCzxid());
            KeyState.Holder marker = lingering.get(stat.getCzxid());
            String owner = PermitNodes.isPermit(LockPaths.name(node.getPath())) ? PermitNodes.ownerOf(node.getData())
                    : new String(node.getData(), StandardCharsets.UTF_8);
            holders.add(new KeyState.Holder(owner,
                    OptionalLong.of(stat.getCzxid()), marker == null ? Optional.empty() : marker.remaining()));
        }
        List<KeyState.Holder> orphans = new ArrayList<>();
        lingering.forEach((czxid, marker) -> {
            if (!held.contains(czxid)) {
                orphans.add(marker);
            }
        });
        if (!orphans.isEmpty()) {
            // Lingering past their session: every queued node waits for them (the queue checks markers first).
            orphans.sort((a, b) -> Long.compare(a.fencingToken().orElse(0), b.fencingToken().orElse(0)));
            return new KeyState(orphans.size() == 1 ? LockMode.EXCLUSIVE : LockMode.SHARED, orphans,
                    OptionalInt.of(queue.size()));
        }
        int waiters = queue.size() - holding.size();
        if (holders.isEmpty()) {
            return KeyState.free(OptionalInt.of(waiters));
        }
        LockMode mode = LockPaths.isShared(holding.get(0)) ? LockMode.SHARED : LockMode.EXCLUSIVE;
        return new KeyState(mode, holders, OptionalInt.of(waiters));
    }

    /** The markers in force at {@code serverNow}, as holders, by the czxid they name. */
    private static Map<Long, KeyState.Holder> lingering(List<String> markers, List<CuratorEvent> markerData,
                                                        long serverNow) {
        Map<Long, KeyState.Holder> lingering = new HashMap<>();
        for (int i = 0; i < markers.size(); i++) {
            CuratorEvent marker = markerData.get(i);
            if (marker == null) {
                continue;
            }
            long linger = MarkerFormat.parseLinger(marker.getData());
            long left = marker.getStat().getMtime() + linger - serverNow;
            if (linger < 0 || left <= 0) {
                continue; // expired (or not a marker): no acquirer waits for it
            }
            long czxid = MarkerFormat.czxidOf(markers.get(i));
            String owner = MarkerFormat.parseOwner(marker.getData());
            lingering.put(czxid, new KeyState.Holder(owner == null ? "" : owner,
                    czxid < 0 ? OptionalLong.empty() : OptionalLong.of(czxid), Optional.of(Duration.ofMillis(left))));
        }
        return lingering;
    }
}
