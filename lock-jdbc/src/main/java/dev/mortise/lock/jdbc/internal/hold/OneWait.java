package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.LockRequest;

/**
 * The attempts of one wait of one request ({@link JdbcWait.Attempts}), as a driver makes them:
 * a wait that made no attempt left nothing on the row, so its giving up removes nothing. A new
 * object per wait, used by its steps one at a time (on the asynchronous path not always on one thread).
 */
abstract class OneWait implements JdbcWait.Attempts {

    final LockRequest request;
    /** The request's key as stored. */
    final String stored;
    private boolean attempted;

    OneWait(LockRequest request, String stored) {
        this.request = request;
        this.stored = stored;
    }

    @Override
    public final Attempt attempt(long markMillis) {
        boolean first = !attempted;
        attempted = true;
        return attempt(markMillis, first);
    }

    /**
     * One attempt of the wait.
     *
     * @param markMillis how long what a refused attempt leaves on the row lasts
     * @param first      whether it is the wait's first attempt: the request arriving
     */
    abstract Attempt attempt(long markMillis, boolean first);

    @Override
    public final void giveUp() {
        if (attempted) {
            removeLeftovers();
        }
    }

    /** Removes what the attempts left on the row, if anything: called once, when the wait ends without a grant. */
    abstract void removeLeftovers();
}
