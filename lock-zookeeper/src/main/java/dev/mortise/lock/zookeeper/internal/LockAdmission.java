package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.LockRequest;

/**
 * The lock queue's rule, for exclusive and shared holds in a key's one queue (ordered by
 * sequence alone). An exclusive node owns the lock when it is first and waits for the node
 * just ahead of it (any mode), so a release wakes exactly one exclusive waiter (no herd). A
 * shared node owns a share when no exclusive node sorts before it and waits for the last
 * exclusive node before it: a writer's release wakes exactly the readers queued behind it up
 * to the next writer (all of them can go), and a reader that comes after a waiting writer
 * waits for it (no writer starvation). Either way only the existence of that one node
 * matters, and when it is the head of the queue its deletion alone admits ours (a hand-off).
 * Stateless apart from the request.
 */
final class LockAdmission implements Admission {

    private final LockRequest request;

    LockAdmission(LockRequest request) {
        this.request = request;
    }

    @Override
    public String nodeName() {
        return LockPaths.nodeName(request.mode());
    }

    @Override
    public String data() {
        return request.owner();
    }

    @Override
    public String waitingFor(String key) {
        return "lock '" + key + "'";
    }

    @Override
    public Verdict admit(QueueView view) {
        return verdict(view);
    }

    /** The rule itself (also what {@link BatchAcquire} asks of each part). */
    static Verdict verdict(QueueView view) {
        int at = view.at();
        if (!view.node().shared()) {
            return at == 0 ? Verdict.ADMITTED : Verdict.waitForDeletion(view.path(at - 1), at == 1);
        }
        for (int i = at - 1; i >= 0; i--) {
            if (!LockPaths.isShared(view.sorted().get(i))) {
                return Verdict.waitForDeletion(view.path(i), i == 0);
            }
        }
        return Verdict.ADMITTED;
    }
}
