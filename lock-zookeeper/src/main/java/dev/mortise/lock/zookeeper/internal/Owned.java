package dev.mortise.lock.zookeeper.internal;

/**
 * A node that owns its key (an exclusive or shared hold, or admitted permits), and when the
 * request that proved it was sent: the grant's validity counts from then (docs/DESIGN.md,
 * "a grant is never older than its evidence").
 *
 * @param node             the owning node
 * @param requestedAtNanos {@link System#nanoTime} just before the request whose answer proved ownership
 */
public record Owned(NodeRef node, long requestedAtNanos) {
}
