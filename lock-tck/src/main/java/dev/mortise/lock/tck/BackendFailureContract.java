package dev.mortise.lock.tck;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Backend failure (DESIGN.md "Semantics" 9): an unreachable server gives a
 * {@link dev.mortise.lock.LockBackendException} within the operation timeout, for locks and pings.
 * Run by every {@link LockBackendContractSuite} as its nested {@code BackendFailure} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class BackendFailureContract extends NestedContract {

    BackendFailureContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void unreachableServerGivesBackendExceptionWithinTheOperationTimeout() {
        String key = key();
        long start = System.nanoTime();
        assertThatThrownBy(() -> {
            LockClient client = track(LockClient.builder(newUnreachableBackend(operationTimeout()))
                    .defaultLease(watchdogLease()).build());
            client.acquire(key, Duration.ofSeconds(60)).close();
        }).isInstanceOf(LockBackendException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(operationTimeout().plus(SLACK));
    }

    @Test
    void pingAnswersAndAnUnreachablePingFails() {
        a.ping();
        assertThatThrownBy(() -> {
            LockClient client = track(LockClient.builder(newUnreachableBackend(operationTimeout()))
                    .defaultLease(watchdogLease()).build());
            client.ping();
        }).isInstanceOf(LockBackendException.class);
    }
}
