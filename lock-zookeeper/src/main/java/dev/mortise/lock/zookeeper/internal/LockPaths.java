package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyEncoding;
import org.apache.curator.utils.PathUtils;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where a key's lock lives: {@code <root>/<segment(key)>/<protected-prefix>lock-<sequence>}
 * for an exclusive hold or waiter, {@code <protected-prefix>shared-lock-<sequence>} for a
 * shared one. Each key gets its own parent (a container node), so a key never waits for
 * keys it is a prefix of, and the server deletes the parent once it is empty. Both modes
 * queue under the same parent, so the server's one sequence counter orders them together.
 */
public final class LockPaths {

    /** The name ZooKeeper appends the sequence number to (an exclusive node). */
    public static final String NODE_NAME = "lock-";
    /**
     * The name of a shared node. It ends in {@link #NODE_NAME}, so a client that predates
     * shared mode still sees it as a queue member (an exclusive one): in a mixed deployment
     * older clients can only over-exclude, never overlap a shared hold.
     */
    public static final String SHARED_NODE_NAME = "shared-" + NODE_NAME;
    private static final String SHARED_MARK = "shared-";
    /** Longest parent segment; longer encodings keep a readable prefix plus a SHA-256. */
    static final int MAX_SEGMENT = 240;
    private static final int SEQUENCE_DIGITS = 10;

    private final String root;

    /** @param root an absolute path such as {@code /mortise/locks}, validated by the builder */
    public LockPaths(String root) {
        this.root = root;
    }

    public String root() {
        return root;
    }

    /**
     * Every node from the top down to {@code parent} (a key's parent under the root):
     * {@code /mortise}, {@code /mortise/locks}, {@code /mortise/locks/<segment>}.
     */
    public List<String> chain(String parent) {
        List<String> chain = new ArrayList<>();
        for (int at = parent.indexOf('/', 1); at > 0; at = parent.indexOf('/', at + 1)) {
            chain.add(parent.substring(0, at));
        }
        chain.add(parent);
        return chain;
    }

    /**
     * The container node of the wait records ({@link ZkWaitRecords}): {@code <root>/#waits}. No
     * key's parent can be it: {@code #} never appears in a {@link #segment}.
     */
    public String waitRecords() {
        return root + "/#waits";
    }

    /** The node of {@code holderId}'s wait record, under {@link #waitRecords}. */
    public String waitRecord(String holderId) {
        return waitRecords() + "/" + holderId;
    }

    /** The parent node of {@code key}'s lock nodes. */
    public String parent(String key) {
        return root + "/" + segment(key);
    }

    /**
     * One legal path segment per key, injective: percent-encoding leaves only ASCII letters,
     * digits and {@code - _ . : ~}; the two segments ZooKeeper forbids ({@code .} and
     * {@code ..}) become {@code %2E} and {@code %2E%2E}, which percent-encoding itself
     * never produces (it emits {@code %2E} only for an unsafe '.', and '.' is safe here).
     */
    public static String segment(String key) {
        String encoded = KeyEncoding.percentEncode(key, KeyEncoding::isPlainChar);
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return KeyEncoding.bounded(encoded, MAX_SEGMENT);
    }

    /** The name a node of {@code mode} is created with (ZooKeeper appends the sequence). */
    public static String nodeName(LockMode mode) {
        return mode == LockMode.SHARED ? SHARED_NODE_NAME : NODE_NAME;
    }

    /**
     * Whether the lock node {@code name} is shared. Curator's protected prefix
     * ({@code _c_<uuid>-}) ends in hex digits, so it can never end in the mark itself.
     */
    public static boolean isShared(String name) {
        int at = name.lastIndexOf(NODE_NAME);
        return at >= SHARED_MARK.length() && name.startsWith(SHARED_MARK, at - SHARED_MARK.length());
    }

    /**
     * Our lock nodes among {@code children}, in sequence order (oldest first), whatever
     * their mode or protected prefix: the sequence alone decides. Names that are not lock
     * nodes are ignored, so a stray node never blocks the queue.
     */
    public static List<String> sortedLockNodes(List<String> children) {
        List<String> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            if (sequenceOf(child) != null) {
                nodes.add(child);
            }
        }
        nodes.sort(Comparator.comparingLong(LockPaths::sequenceOf));
        return nodes;
    }

    /** Whether any exclusive lock node is among {@code children} (stray nodes are ignored). */
    public static boolean anyExclusive(List<String> children) {
        for (String child : children) {
            if (sequenceOf(child) != null && !isShared(child)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The sequence number ZooKeeper appended, or {@code null} if {@code name} is not a
     * lock node. The protected prefix Curator adds ({@code _c_<uuid>-}) comes first, so
     * the sequence is always the last ten characters.
     */
    static Long sequenceOf(String name) {
        int at = name.lastIndexOf(NODE_NAME);
        if (at < 0 || name.length() - at - NODE_NAME.length() < SEQUENCE_DIGITS) {
            return null;
        }
        try {
            return Long.parseLong(name.substring(at + NODE_NAME.length()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The last segment of {@code path}. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /**
     * Checks a root path given to the builder.
     *
     * @throws IllegalArgumentException naming the problem and the fix
     */
    public static String validateRoot(String root) {
        if (root == null || root.isBlank()) {
            throw new IllegalArgumentException("ZooKeeper rootPath must not be null or blank (backend 'zookeeper'); "
                    + "use an absolute path such as /mortise/locks");
        }
        if (root.equals("/") || root.equals("/zookeeper") || root.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException("ZooKeeper rootPath '" + root + "' is not allowed (backend 'zookeeper'):"
                    + " locks need a node of their own, and /zookeeper is reserved; use e.g. /mortise/locks");
        }
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("ZooKeeper rootPath '" + root + "' is not a valid absolute path without "
                    + "a trailing slash (backend 'zookeeper'): " + e.getMessage(), e);
        }
        return root;
    }
}
