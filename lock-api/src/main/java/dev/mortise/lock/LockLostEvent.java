package dev.mortise.lock;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@link LockLease#onLost} listeners receive, once per lost hold.
 *
 * @param key          the lock key
 * @param backend      the backend name
 * @param fencingToken the token of the lost hold; writes with it must now be refused
 * @param reason       why the hold was lost
 * @param lostAt       when the client noticed
 * @param heldFor      how long the hold had been held when it was lost
 * @param cause        the backend failure behind the loss, or {@code null}
 */
public record LockLostEvent(String key, String backend, long fencingToken, LostReason reason,
                            Instant lostAt, Duration heldFor, Throwable cause) {
}
