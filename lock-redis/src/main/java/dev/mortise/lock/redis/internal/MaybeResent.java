package dev.mortise.lock.redis.internal;

/**
 * The one rule for reading the answer to a release that may have reached a server twice (DESIGN.md
 * point 4: a lease closed while valid is no loss): "not there" counts as "had" when the release may
 * have been sent again meanwhile, because the first send, whose answer was lost with its connection,
 * took the hold and the second found nothing. Reporting the hold missing would tell its owner of a
 * loss that never happened ({@code WireFaultContract}'s release cut). A hold that was in fact gone
 * before, in a release whose answer was also lost, is the one loss this cannot tell.
 *
 * <p>An instance watches one transport's own resends ({@link RedisTransport#resends()}: Lettuce writes
 * unanswered commands again after reconnecting) from when it is made; a single server's release
 * ({@link ScriptRunner#callNoticingResends}, {@link HoldCommands#release}) and Redlock's, node by node,
 * read their answers through {@link #had}. Immutable; thread-safe.
 */
public final class MaybeResent {

    private final RedisTransport transport;
    private final long resendsBefore;

    private MaybeResent(RedisTransport transport) {
        this.transport = transport;
        this.resendsBefore = transport.resends();
    }

    /** Starts watching {@code transport}'s own resends; made before the call is sent. */
    public static MaybeResent watch(RedisTransport transport) {
        return new MaybeResent(transport);
    }

    /** Whether a call sent since {@link #watch} may have reached the server twice: the transport resent meanwhile. */
    public boolean resent() {
        return transport.resends() != resendsBefore;
    }

    /**
     * Whether a release counts as having found the hold: its answer was 1 (the owner held it, and it is
     * gone now), or "not there" when {@code maybeResent} (the answer may be a second send's).
     */
    public static boolean had(long answer, boolean maybeResent) {
        return answer == 1 || maybeResent;
    }
}
