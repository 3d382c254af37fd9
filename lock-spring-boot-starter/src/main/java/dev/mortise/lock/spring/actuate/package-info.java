/**
 * Actuator support: the {@code locks} endpoint (read-only: holds, leadership and what deadlock
 * detection sees; its force-release operation when enabled) and the health indicators of the lock
 * backends and leadership groups.
 *
 * <p>API: users may depend on these types (to register them themselves or extend the endpoint).
 * Their implementation reads the engine's record of multi-key holds, an internal detail that
 * none of their signatures shows.
 */
package dev.mortise.lock.spring.actuate;
