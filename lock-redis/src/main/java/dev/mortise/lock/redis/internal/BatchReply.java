package dev.mortise.lock.redis.internal;

import java.util.List;

/**
 * The answer to {@link RedisTransport#sendBatch}: each script's reply in call order, and how many
 * replicas acknowledged the writes ({@code WAIT}'s answer; the fewest over the nodes written to),
 * or 0 when no {@code WAIT} was asked for.
 */
public record BatchReply(List<Object> replies, int syncedReplicas) {
}
