package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Which of our lock nodes the server still keeps for the current session, asked with
 * {@code getEphemerals} (ZooKeeper 3.6+): the server lists the ephemeral nodes of the
 * calling session whose path starts with a prefix, so one request answers for every hold
 * under the root, whatever their number, and a node that is listed both exists and belongs
 * to the current session.
 *
 * <p>The answer must fit the client's packet limit ({@code jute.maxbuffer}, 1 MiB by
 * default; a larger answer would break the connection). The nodes are therefore split by
 * path prefix into as few requests as fit with a margin for nodes we do not track (waiters
 * in flight); the requests are sent together. About 10,000 holds with short keys fit in
 * one.
 *
 * <p>A request's prefix must be a legal ZooKeeper path ({@code getEphemerals} rejects one
 * ending in {@code /}, {@code /.} or {@code /..} on the client, before anything is sent), so
 * the prefix two paths share is cut back to the longest legal path, which the server then
 * matches by plain string prefix: {@code /mortise/locks/} is asked as {@code /mortise/locks}.
 * A group is only listed by a prefix that covers no tracked node of another group, so no
 * node is listed twice and every answer's size is estimated right. Every answer is filtered
 * to the nodes asked for.
 *
 * <p>Thread-safe. {@link #present} returns {@code null} when the server cannot answer
 * (older than 3.6, or after {@link #distrust}); callers then check node by node.
 */
public final class SessionNodes {

    private static final Logger log = LoggerFactory.getLogger(SessionNodes.class);

    /** Reply header, list length and packet length around the listed paths. */
    private static final int OVERHEAD = 64;
    /** Per listed path: its length prefix. */
    private static final int PER_PATH = 4;

    private final ZkOps ops;
    private volatile boolean unsupported;

    public SessionNodes(ZkOps ops) {
        this.ops = ops;
    }

    /**
     * Lists which of {@code asked} (client paths, as Curator sees them) are ephemeral nodes
     * of the current session.
     *
     * @param asked         the nodes to check
     * @param known         every node of this backend's session that may be listed with them
     *                      (all holds), so that the answers' sizes are estimated right
     * @param deadlineNanos when to give up waiting
     * @return those of {@code asked} that the server listed, or {@code null} if the server
     *         cannot list them (then nothing is known, not "all gone")
     * @throws dev.mortise.lock.LockBackendException if an answer does not come in time or is an error
     */
    public Set<String> present(Collection<String> asked, Collection<String> known, long deadlineNanos) {
        if (unsupported) {
            return null;
        }
        if (asked.isEmpty()) {
            return Set.of();
        }
        CuratorFramework client = ops.calls().client();
        ZooKeeper zk;
        try {
            zk = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw Failures.keeper("list the session's lock nodes", null,
                    KeeperException.create(KeeperException.Code.CONNECTIONLOSS), ops.calls().ensemble());
        }
        // getEphemerals takes and returns server paths: the chroot and Curator's namespace are not applied.
        String serverPrefix = serverPrefix(client);
        TreeSet<String> all = new TreeSet<>(known);
        all.addAll(asked);
        List<Group> groups = new ArrayList<>();
        split(new ArrayList<>(all), serverPrefix, budget(zk.getClientConfig()), groups);
        Set<String> wanted = asked instanceof Set<String> set ? set : new HashSet<>(asked);

        List<CompletableFuture<List<String>>> answers = new ArrayList<>(groups.size());
        for (Group group : groups) {
            if (group.members.stream().noneMatch(wanted::contains)) {
                continue;
            }
            CompletableFuture<List<String>> answer = new CompletableFuture<>();
            String prefix = serverPath(serverPrefix, group.prefix);
            try {
                zk.getEphemerals(prefix, (rc, ctx, listed) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        answer.complete(listed);
                    } else {
                        answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
                    }
                }, null);
            } catch (IllegalArgumentException e) {
                // The client refused the prefix before sending anything: a bug here, not a server
                // answer. Check node by node this time rather than let every renewal fail.
                log.warn("The ZooKeeper client refused the getEphemerals prefix '{}' ({}); this period's renewal "
                        + "checks each lock node with its own exists request instead. This is a bug in the "
                        + "ZooKeeper backend; please report it with this message.", prefix, e.getMessage());
                return null;
            }
            answers.add(answer);
        }
        Set<String> present = new HashSet<>(Math.max(16, wanted.size() * 2));
        for (CompletableFuture<List<String>> answer : answers) {
            List<String> listed;
            try {
                listed = await(answer, deadlineNanos);
            } catch (KeeperException.UnimplementedException e) {
                unsupported = true;
                log.info("The ZooKeeper server does not implement getEphemerals (it is older than 3.6): renewals "
                        + "check each lock node with its own exists request");
                return null;
            } catch (KeeperException e) {
                throw Failures.keeper("list the session's lock nodes", null, e, ops.calls().ensemble());
            }
            for (String path : listed) {
                // A prefix matches by string, not by path: other keys' nodes, or nodes of ours nobody
                // asked about, may be listed too.
                if (path.startsWith(serverPrefix)) {
                    String ours = path.substring(serverPrefix.length());
                    if (wanted.contains(ours)) {
                        present.add(ours);
                    }
                }
            }
        }
        return present;
    }

    /** Paths that one getEphemerals request lists, by their common prefix. */
    record Group(String prefix, List<String> members) {
    }

    /**
     * Stops using the listing for good: a node it left out was found by a direct check, so
     * the server paths were not what this class computed (a chroot it could not see).
     */
    public void distrust() {
        if (!unsupported) {
            unsupported = true;
            log.warn("A lock node missing from the session's getEphemerals listing exists after all (is the client's "
                    + "chroot or namespace unusual?); renewals now check each lock node with its own exists request");
        }
    }

    /**
     * Splits sorted, distinct {@code paths} (client paths) into groups whose listings each fit
     * {@code budget} bytes. Each group is listed by a legal path prefix ({@link #legalPrefix}
     * of the longest prefix its members share) that covers no path of another group; a group
     * that does not fit, or whose legal prefix would cover paths of others, is split by the
     * character after the shared prefix. One key's nodes always fit, so this ends at the
     * latest at one group per node.
     *
     * @param serverPrefix what the server puts before a client path (chroot, namespace)
     */
    static void split(List<String> paths, String serverPrefix, int budget, List<Group> groups) {
        if (!paths.isEmpty()) {
            split(paths, 0, paths.size(), serverPrefix, budget, groups);
        }
    }

    private static void split(List<String> all, int from, int to, String serverPrefix, int budget,
                              List<Group> groups) {
        String first = all.get(from);
        int shared = to - from == 1 ? first.length() : commonPrefix(first, all.get(to - 1));
        String prefix = legalPrefix(serverPrefix, first.substring(0, shared));
        // The paths the server lists for the prefix (of those we track) are a contiguous range of the sorted list.
        boolean exact = prefix.length() == shared
                || (lowerBound(all, prefix) == from && lowerBound(all, prefix + Character.MAX_VALUE) == to);
        if (to - from == 1 || (exact && bytes(all, from, to, serverPrefix.length()) <= budget)) {
            // A single node is listed by its own path: legal, and no other lock node starts with it.
            groups.add(new Group(prefix, List.copyOf(all.subList(from, to))));
            return;
        }
        // Distinct lock node paths are never prefixes of one another: splitting after the shared
        // prefix always makes smaller groups (a path that ends there sorts first, alone).
        int start = from;
        while (start < to) {
            String path = all.get(start);
            int next = path.length() > shared ? path.charAt(shared) : -1;
            int end = start + 1;
            while (end < to && (all.get(end).length() > shared ? all.get(end).charAt(shared) : -1) == next) {
                end++;
            }
            split(all, start, end, serverPrefix, budget, groups);
            start = end;
        }
    }

    /**
     * The longest prefix of {@code prefix} that, after {@code serverPrefix}, is a path the
     * ZooKeeper client accepts: not ending in {@code /}, and no last segment {@code .} or
     * {@code ..} (prefixes of legal paths are otherwise legal). May be empty: the server
     * root or the chroot itself.
     */
    static String legalPrefix(String serverPrefix, String prefix) {
        String legal = prefix;
        while (!legal.isEmpty() && !isLegal(serverPath(serverPrefix, legal))) {
            legal = legal.substring(0, legal.length() - 1);
        }
        return legal;
    }

    /** The server path that lists {@code prefix} ("/" if both are empty: the whole session). */
    static String serverPath(String serverPrefix, String prefix) {
        String path = serverPrefix + prefix;
        return path.isEmpty() ? "/" : path;
    }

    private static boolean isLegal(String path) {
        try {
            PathUtils.validatePath(path);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The index of the first path not less than {@code value}. */
    private static int lowerBound(List<String> sorted, String value) {
        int index = Collections.binarySearch(sorted, value);
        return index >= 0 ? index : -index - 1;
    }

    private static long bytes(List<String> paths, int from, int to, int serverPrefixLength) {
        long bytes = OVERHEAD;
        for (int i = from; i < to; i++) {
            bytes += PER_PATH + serverPrefixLength + utf8Length(paths.get(i));
        }
        return bytes;
    }

    private static int commonPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }

    private static int utf8Length(String path) {
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) >= 0x80) {
                return path.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return path.length();
    }

    /** What fits in one answer: the client's packet limit less an eighth (at least 64 KiB) for nodes we do not track. */
    static int budget(ZKClientConfig config) {
        int limit = config == null ? ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT
                : config.getInt(ZKClientConfig.JUTE_MAXBUFFER, ZKClientConfig.CLIENT_MAX_PACKET_LENGTH_DEFAULT);
        return limit - Math.max(64 * 1024, limit / 8);
    }

    /** The chroot of the connect string and Curator's namespace: what the server puts before our paths. */
    static String serverPrefix(CuratorFramework client) {
        String chroot = null;
        try {
            chroot = new ConnectStringParser(client.getZookeeperClient().getCurrentConnectionString()).getChrootPath();
        } catch (RuntimeException e) {
            log.debug("Could not read a chroot from the connect string", e);
        }
        String namespace = client.getNamespace();
        return (chroot == null ? "" : chroot) + (namespace == null || namespace.isEmpty() ? "" : "/" + namespace);
    }

    private static List<String> await(CompletableFuture<List<String>> answer, long deadlineNanos)
            throws KeeperException {
        try {
            return Deadlines.awaitUninterruptibly(answer, deadlineNanos);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException keeper) {
                throw keeper;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw KeeperException.create(KeeperException.Code.OPERATIONTIMEOUT);
        }
    }
}
