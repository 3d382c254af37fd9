package dev.mortise.samples.demo;

import dev.mortise.lock.LockClient;

/**
 * One in-process stand-in for a service instance: a name and its own {@link LockClient}.
 * Two replicas with two clients on the same backend contend through the lock server exactly
 * as two JVMs would.
 *
 * @param name       shown in the output
 * @param clientName the lock backend (client) name
 * @param locks      its client
 */
public record Replica(String name, String clientName, LockClient locks) {
}
