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

    /**
     * The hold is gone and the backend knows why: for a backend that learns more than "the
     * session ended" (the test support's in-process server, whose hooks expire or take a hold on
     * purpose and tell its holder at once). The default reports it as {@link #lost(Grant, Throwable)}.
     */
    default void lost(Grant grant, dev.mortise.lock.LostReason reason, Throwable cause) {
        lost(grant, cause);
    }
}
