package dev.mortise.lock;

/**
 * The acquire was the victim of a deadlock: its owner holds a lock that another waiting owner needs,
 * in a cycle of waits that would never end by itself ({@link #cycle()} names every key, holder id and
 * wait time in it). Nothing of this request is held or left on the server; the owner keeps the locks
 * it held before, and the other members of the cycle go on waiting. Typically the owner's code rolls
 * back and releases what it holds, so the others get their keys, and retries later, taking the keys in
 * one order everywhere (or together with {@link LockClient#acquireAll}).
 *
 * <p>Not a "busy" answer: {@code tryAcquire}-style methods throw it too, and the Spring starter's
 * skip and wait policies do not swallow it.
 */
public class LockDeadlockException extends LockException {

    private static final long serialVersionUID = 1L;

    private final transient DeadlockCycle cycle;

    public LockDeadlockException(String key, String backend, DeadlockCycle cycle) {
        super("Deadlock: the wait for lock '" + key + "' on backend '" + backend + "' was chosen to end a cycle of "
                + cycle.members().size() + " waits (the youngest wait ends): " + cycle.describe()
                + ". Nothing of this request is held; the locks held before are kept. Release them (roll back) so "
                + "the others can go on, and take keys in one order everywhere, or together with acquireAll.",
                key, backend, null);
        this.cycle = cycle;
    }

    /** The cycle this wait was the victim of. */
    public DeadlockCycle cycle() {
        return cycle;
    }
}
