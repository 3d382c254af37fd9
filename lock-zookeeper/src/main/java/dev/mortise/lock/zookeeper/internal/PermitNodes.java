package dev.mortise.lock.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How a semaphore's permit holds are written: one ephemeral sequential node per acquisition,
 * named {@code <protected-prefix>permits-<count>-shared-lock-<sequence>} in the key's one queue,
 * with the data {@code <count>/<limit>\n<owner>}.
 *
 * <p>The count is in the name so that one listing of the queue gives every node's count (the
 * admission rule sums the counts of all nodes ahead, which would otherwise cost a read per
 * node); it is also in the data, with the stored limit, for operators. The name ends in
 * {@link LockPaths#SHARED_NODE_NAME}, so the rest of the backend (renewal, release, linger,
 * inspection, and the lock queue of a lock request that meets permit nodes) sees a shared
 * hold, and older clients an exclusive one: they can only over-exclude. The limit is in the
 * data (never in the name) because {@code setPermits} changes it in place. Stateless.
 */
public final class PermitNodes {

    private static final String MARK = "permits-";
    private static final String TAIL = "-" + LockPaths.SHARED_NODE_NAME;

    private PermitNodes() {
    }

    /** The name a permit node taking {@code count} permits is created with (ZooKeeper appends the sequence). */
    public static String nodeName(int count) {
        return MARK + count + TAIL;
    }

    /** Whether lock node {@code name} is a permit node. */
    public static boolean isPermit(String name) {
        return countOf(name) > 0;
    }

    /**
     * The permits lock node {@code name} takes, or 0 if it is not a permit node. Curator's
     * protected prefix ({@code _c_<uuid>-}) holds no {@code permits-}, so the last one is ours.
     */
    public static int countOf(String name) {
        int tail = name.lastIndexOf(TAIL);
        if (tail < 0) {
            return 0;
        }
        int mark = name.lastIndexOf(MARK, tail);
        if (mark < 0 || mark + MARK.length() >= tail) {
            return 0;
        }
        try {
            int count = Integer.parseInt(name.substring(mark + MARK.length(), tail));
            return count > 0 ? count : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The data of a permit node. */
    public static String data(int count, int limit, String owner) {
        return count + "/" + limit + "\n" + owner;
    }

    /**
     * The stored limit in a permit node's data, or -1 if the data carries none (a hold left to
     * linger has its data rewritten to the owner alone: {@link LingerMarkers#leave}).
     */
    public static int limitOf(byte[] data) {
        if (data == null) {
            return -1;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        int slash = text.indexOf('/');
        int newline = text.indexOf('\n');
        if (slash < 0 || newline < slash) {
            return -1;
        }
        try {
            int limit = Integer.parseInt(text.substring(slash + 1, newline));
            return limit > 0 ? limit : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The owner in a permit node's data (the whole data if it carries no count). */
    public static String ownerOf(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        return limitOf(data) < 0 ? text : text.substring(text.indexOf('\n') + 1);
    }

    /** Whether any lock node of {@code queue} (sorted lock nodes) is not a permit node. */
    public static boolean anyNonPermit(List<String> queue) {
        for (String node : queue) {
            if (!isPermit(node)) {
                return true;
            }
        }
        return false;
    }

    /** The sum of the counts of {@code queue}'s nodes before index {@code end} (permit nodes only). */
    public static long countsBefore(List<String> queue, int end) {
        long sum = 0;
        for (int i = 0; i < end; i++) {
            sum += countOf(queue.get(i));
        }
        return sum;
    }

    /**
     * How many of {@code queue}'s leading permit nodes hold under {@code limit} by the admission
     * rule: the longest prefix of permit nodes whose counts add up to at most {@code limit}.
     */
    public static int admitted(List<String> queue, int limit) {
        long sum = 0;
        int i = 0;
        for (; i < queue.size(); i++) {
            int count = countOf(queue.get(i));
            if (count == 0 || sum + count > limit) {
                break;
            }
            sum += count;
        }
        return i;
    }
}
