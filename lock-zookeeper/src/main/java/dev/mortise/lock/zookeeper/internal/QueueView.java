package dev.mortise.lock.zookeeper.internal;

import java.util.List;
import java.util.Set;

/**
 * What one listing of a key's queue showed about our node: the lock nodes in sequence order,
 * where ours stands among them, and the lingering holds' markers beside them. Immutable.
 *
 * @param parent             the key's parent node
 * @param node               our node
 * @param sorted             the lock nodes of the listing, oldest first ({@link LockPaths#sortedLockNodes})
 * @param at                 our node's index in {@code sorted}
 * @param markers            the markers of lingering holds the listing showed ({@link LingerMarkers})
 * @param listedAtNanos      when the request that produced this state was sent (the listing,
 *                           or the create it was pipelined behind)
 * @param watchedBefore      the paths whose watches were in force before the listing was sent
 *                           and still are: any change of them after it fires
 * @param roundDeadlineNanos the deadline of the requests sent with the listing
 */
record QueueView(String parent, NodeRef node, List<String> sorted, int at, List<String> markers,
                 long listedAtNanos, Set<String> watchedBefore, long roundDeadlineNanos) {

    /**
     * Our node's place in {@code listing} (the parent's children), or {@code null} if the
     * listing does not show it.
     */
    static QueueView of(String parent, NodeRef node, List<String> listing, long listedAtNanos,
                        Set<String> watchedBefore, long roundDeadlineNanos) {
        List<String> sorted = LockPaths.sortedLockNodes(listing);
        int at = sorted.indexOf(node.name());
        if (at < 0) {
            return null;
        }
        return new QueueView(parent, node, sorted, at, MarkerFormat.among(listing), listedAtNanos, watchedBefore,
                roundDeadlineNanos);
    }

    /** The full path of the lock node at {@code index} of {@link #sorted}. */
    String path(int index) {
        return parent + "/" + sorted.get(index);
    }
}
