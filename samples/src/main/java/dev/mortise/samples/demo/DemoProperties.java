package dev.mortise.samples.demo;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Settings of the start-up demonstration ({@code sample.demo.*}).
 *
 * @param enabled              run it at start-up
 * @param threadsPerReplica    concurrent threads in each of the two replicas
 * @param operationsPerThread  withdrawals each thread makes per run
 * @param accounts             how many demo accounts they share
 * @param work                 pause between reading and writing a balance (the "work"
 *                             that widens the race a lock closes)
 * @param staleLease           explicit lease of the paused replica in the fencing scenario
 * @param stalePause           how long it pauses holding that lease (longer than the lease)
 * @param secondReplicaBackend the lock backend (client) name of the second replica; it falls
 *                             back to the default client when no backend has that name
 */
@ConfigurationProperties("sample.demo")
public record DemoProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("4") int threadsPerReplica,
        @DefaultValue("25") int operationsPerThread,
        @DefaultValue("3") int accounts,
        @DefaultValue("1ms") Duration work,
        @DefaultValue("300ms") Duration staleLease,
        @DefaultValue("800ms") Duration stalePause,
        @DefaultValue("replica-b") String secondReplicaBackend) {
}
