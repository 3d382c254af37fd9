package dev.mortise.lock.fencing;

import dev.mortise.lock.LockException;

/**
 * A write carried a fencing token lower than one the resource has already seen: a newer
 * holder of the lock has written since, so this holder's lease ran out (a pause, a lost
 * renewal) and its write must not land.
 *
 * <p>Thrown by {@link JdbcFenceGuard}, {@link FencedUpdate} and the Redis fenced writes
 * <em>before</em> anything of the stale write is applied by them. With JDBC the caller's
 * transaction must roll back (it may already hold the caller's other writes); the guard
 * never commits or rolls back itself. Retrying with the same lease cannot succeed: acquire
 * the lock again for a new token.
 */
public class StaleFencingTokenException extends LockException {

    private static final long serialVersionUID = 1L;

    private final long staleToken;
    private final long newerToken;

    public StaleFencingTokenException(String message, String resource, String guard, long staleToken, long newerToken) {
        super(message, resource, guard, null);
        this.staleToken = staleToken;
        this.newerToken = newerToken;
    }

    /** The fenced resource (also {@link #key()}). */
    public String resource() {
        return key();
    }

    /** The token of the refused write. */
    public long staleToken() {
        return staleToken;
    }

    /**
     * The higher token the resource had seen when it refused the write, or {@code -1} if it
     * could not be read back (it is then known only to be higher than {@link #staleToken()}).
     */
    public long newerToken() {
        return newerToken;
    }

    /** The message every guard uses: resource, both tokens, what went wrong and what to do. */
    static String message(String resource, long staleToken, long newerToken, String where, boolean transaction) {
        String newer = newerToken >= 0 ? "token " + newerToken : "a higher token";
        return "Stale fencing token " + staleToken + " for resource '" + resource + "': a newer lock holder already "
                + "wrote with " + newer + " (" + where + "). This holder's lease ran out (a pause or lost renewal) "
                + "and another client took the lock, so this write is refused"
                + (transaction ? "; roll back the transaction (its other writes must not commit either)" : "")
                + ". Do not retry with this lease: acquire the lock again for a new token.";
    }
}
