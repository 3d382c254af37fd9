package dev.mortise.lock.etcd;

import dev.mortise.lock.LockLease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What fenced storage sees of a lock's holders: it records each holder entering and leaving
 * and notes a violation when a valid holder enters while another valid holder is inside
 * (a double grant), or enters with a token not above every token seen before (fencing
 * out of order). Holders whose lease is no longer valid are fenced out, not violations.
 */
final class FencedLedger {

    private final List<String> violations = new CopyOnWriteArrayList<>();
    private LockLease inside;
    private long highestToken = Long.MIN_VALUE;
    private int entries;

    synchronized void enter(LockLease lease) {
        if (!lease.isValid()) {
            return;
        }
        if (inside != null && inside.isValid()) {
            violations.add("double grant: token " + lease.fencingToken() + " entered while token "
                    + inside.fencingToken() + " was valid inside");
        }
        if (lease.fencingToken() <= highestToken) {
            violations.add("token " + lease.fencingToken() + " entered after token " + highestToken);
        }
        highestToken = Math.max(highestToken, lease.fencingToken());
        inside = lease;
        entries++;
    }

    synchronized void leave(LockLease lease) {
        if (inside == lease) {
            inside = null;
        }
    }

    synchronized int entries() {
        return entries;
    }

    List<String> violations() {
        return violations;
    }
}
