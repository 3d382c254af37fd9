package dev.mortise.lock.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a lingering hold's marker ({@link LingerMarkers}) is named and what it stores:
 * {@code <parent>/linger-czxid<token>} beside the lock nodes, with the data
 * {@code <linger in milliseconds>\n<owner>}; and the only clock it can be measured against, a
 * lower bound of the leader's clock from our own node's creation time. Stateless.
 */
public final class MarkerFormat {

    /** The name prefix of a marker; a marker never looks like a lock node to {@link LockPaths}. */
    public static final String PREFIX = "linger-czxid";

    private MarkerFormat() {
    }

    /** The marker of the hold on {@code node}, beside it in the key's parent. */
    public static String path(NodeRef node) {
        String nodePath = node.path();
        return nodePath.substring(0, nodePath.lastIndexOf('/') + 1) + PREFIX + node.czxid();
    }

    /** The markers among a parent's children. */
    public static List<String> among(List<String> children) {
        List<String> markers = null;
        for (String child : children) {
            if (child.startsWith(PREFIX)) {
                if (markers == null) {
                    markers = new ArrayList<>(1);
                }
                markers.add(child);
            }
        }
        return markers == null ? List.of() : markers;
    }

    /**
     * A lower bound of the leader's clock now, from our node's creation time and the
     * moment ({@link System#nanoTime}) its create was answered or later.
     */
    public static long serverNowAtLeast(NodeRef node, long answeredAtNanos) {
        long elapsedMillis = (System.nanoTime() - answeredAtNanos) / 1_000_000;
        return node.ctime() + elapsedMillis - elapsedMillis / 100;
    }

    /** The data of the marker of a hold left to linger {@code linger}, for {@code owner}. */
    static byte[] data(Duration linger, String owner) {
        return (lingerMillis(linger) + "\n" + owner).getBytes(StandardCharsets.UTF_8);
    }

    /** Milliseconds, rounded up, plus one for the millisecond the marker's mtime was truncated to. */
    private static long lingerMillis(Duration linger) {
        long millis = linger.toMillis();
        return (linger.minusMillis(millis).isZero() ? millis : millis + 1) + 1;
    }

    static long parseLinger(byte[] data) {
        if (data == null) {
            return -1;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        try {
            return Long.parseLong(end < 0 ? text : text.substring(0, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The owner a marker's data names (after its linger), or null if it names none. */
    static String parseOwner(byte[] data) {
        if (data == null) {
            return null;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        return end < 0 ? null : text.substring(end + 1);
    }

    /** The czxid (the lingering hold's fencing token) a marker's name carries, or -1 if it carries none. */
    static long czxidOf(String marker) {
        try {
            return Long.parseLong(marker.substring(PREFIX.length()));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return -1;
        }
    }
}
