package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
     * @return the listed paths (a superset of the present ones among {@code asked}), or
     *         {@code null} if the server cannot list them (then nothing is known, not "all gone")
     * @throws dev.mortise.lock.LockBackendException if an answer does not come in time or is an error
     */
    public Set<String> present(Collection<String> asked, Collection<String> known, long deadlineNanos) {
        if (unsupported) {
            return null;
        }
        if (asked.isEmpty()) {
            return Set.of();
        }
        CuratorFramework client = ops.client();
        ZooKeeper zk;
        try {
            zk = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw Failures.keeper("list the session's lock nodes", null,
                    KeeperException.create(KeeperException.Code.CONNECTIONLOSS), ops.ensemble());
        }
        // getEphemerals takes and returns server paths: the chroot and Curator's namespace are not applied.
        String serverPrefix = serverPrefix(client);
        TreeSet<String> all = new TreeSet<>(known);
        all.addAll(asked);
        List<Group> groups = new ArrayList<>();
        split(new ArrayList<>(all), serverPrefix.length(), budget(zk.getClientConfig()), groups);
        Set<String> wanted = asked instanceof Set<String> set ? set : new HashSet<>(asked);

        List<CompletableFuture<List<String>>> answers = new ArrayList<>(groups.size());
        for (Group group : groups) {
            if (group.members.stream().noneMatch(wanted::contains)) {
                continue;
            }
            CompletableFuture<List<String>> answer = new CompletableFuture<>();
            zk.getEphemerals(serverPrefix + group.prefix, (rc, ctx, listed) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    answer.complete(listed);
                } else {
                    answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
                }
            }, null);
            answers.add(answer);
        }
        Set<String> present = new HashSet<>(Math.max(16, all.size() * 2));
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
                throw Failures.keeper("list the session's lock nodes", null, e, ops.ensemble());
            }
            for (String path : listed) {
                if (path.startsWith(serverPrefix)) {
                    present.add(path.substring(serverPrefix.length()));
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
     * Splits sorted, distinct {@code paths} into groups whose listings each fit {@code budget}
     * bytes, each listed by the longest prefix its members share: a group that does not fit
     * is split by the character after that prefix. One key's nodes always fit, so this ends
     * at the latest at one group per key.
     */
    static void split(List<String> paths, int serverPrefixLength, int budget, List<Group> groups) {
        long bytes = OVERHEAD;
        int longest = 0;
        for (String path : paths) {
            bytes += PER_PATH + serverPrefixLength + utf8Length(path);
            longest = Math.max(longest, path.length());
        }
        String first = paths.get(0);
        int shared = commonPrefix(first, paths.get(paths.size() - 1));
        if (bytes <= budget || paths.size() == 1 || shared >= longest) {
            groups.add(new Group(first.substring(0, shared), paths));
            return;
        }
        // Distinct lock node paths are never prefixes of one another: splitting after the shared
        // prefix always makes smaller groups.
        TreeMap<Character, List<String>> byNext = new TreeMap<>();
        for (String path : paths) {
            byNext.computeIfAbsent(path.length() > shared ? path.charAt(shared) : '\0', c -> new ArrayList<>())
                    .add(path);
        }
        for (List<String> group : byNext.values()) {
            split(group, serverPrefixLength, budget, groups);
        }
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
