package dev.mortise.lock.spi;

/**
 * How a backend tells the core about holds it learns about without being asked.
 * Implemented by the core; backends call it from their own threads. Calls for grants the
 * core does not know (released already, or of another client) are ignored. A backend may
 * call it for a grant as soon as it has decided to return it: an event that arrives while
 * the grant is still on its way back to the acquiring thread is kept and applied when the
 * hold is registered (a loss then fails the acquire instead of handing out a dead lease).
 */
public interface GrantListener {

    /** Ownership is uncertain (connection suspended): leases stop being valid at once. */
    void suspended(Grant grant);

    /** Ownership is confirmed again after {@link #suspended}: leases are valid again. */
    void restored(Grant grant);

    /** The hold is gone (session expired, lease revoked). */
    void lost(Grant grant, Throwable cause);
}
