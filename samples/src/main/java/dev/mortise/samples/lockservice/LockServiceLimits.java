package dev.mortise.samples.lockservice;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * Bounds of the lock-service HTTP API ({@code sample.lock-service.*}). A request outside
 * them is a 400: an hour-long lease or a five-minute block is already more than a remote
 * client should need, and a larger one is almost always a unit mistake (seconds sent as ms
 * the other way round).
 *
 * @param maxLease        longest {@code lease_time_ms}
 * @param maxBlock        longest {@code block_time_ms} (it holds an HTTP worker thread)
 * @param maxClientIdLength longest {@code client_id}, in characters
 * @param cleanupInterval how often leases that ran out without a release are dropped
 */
@ConfigurationProperties("sample.lock-service")
public record LockServiceLimits(
        @DefaultValue("1h") Duration maxLease,
        @DefaultValue("5m") Duration maxBlock,
        @DefaultValue("256") int maxClientIdLength,
        @DefaultValue("10s") Duration cleanupInterval) {
}
