package dev.mortise.lock.jdbc.internal.hold;

/**
 * The sends of one acquire statement: {@code JdbcCalls.runIdempotent} sends it once more when
 * the first send's connection broke, and that first send may have committed, or may still. The
 * statement sets {@link #requestedAt} to {@link System#nanoTime()} just before each send. Used by
 * one thread.
 */
final class Sends {

    /** Set by the statement just before each send; 0 until the first. */
    final long[] requestedAt = {0};
    /** The first send when the statement had to be sent again, else 0. */
    private long firstSent;

    /** Called as each send begins: a send before it lost its connection, and may still commit. */
    void beforeSend() {
        if (requestedAt[0] != 0 && firstSent == 0) {
            firstSent = requestedAt[0];
        }
    }

    /** Whether the statement was sent at all (then the server may have applied it). */
    boolean sent() {
        return requestedAt[0] != 0;
    }

    /** Whether the statement was sent again after a first send whose connection broke. */
    boolean resent() {
        return firstSent != 0;
    }

    /**
     * When a grant's validity counts from: the first send of its request when the statement had to be
     * sent again, otherwise the one send. A resend's grant rests on the first send too: that send may
     * have committed (the resend then keeps its token, or finds its entry), and the database's expiry
     * of what it wrote counts from its own statement. Counting from the resend would outlive that
     * expiry by the time the first answer was lost for.
     */
    long earliest() {
        return firstSent != 0 ? firstSent : requestedAt[0];
    }
}
