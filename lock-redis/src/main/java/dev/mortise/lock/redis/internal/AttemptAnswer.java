package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.Attempt;

/**
 * An answered attempt; whether live readers were what refused it (an exclusive request then
 * refreshes its writer-waiting marker at least every {@link WaitingAcquisition#HEARTBEAT}); and the
 * key's fence counter when the server refused it ({@link Long#MAX_VALUE} when the answer carried none:
 * a granted or cancelled attempt). A hand-off whose token is not above a refusal's counter was made
 * before that refusal, and its lease had ended by then.
 */
record AttemptAnswer(Attempt attempt, boolean readersHold, long fence) {
}
